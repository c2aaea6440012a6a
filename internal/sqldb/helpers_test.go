package sqldb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// mustOpen opens a new database in tb.TempDir, closed at cleanup.
func mustOpen(tb testing.TB) *sqldb.DB {
	tb.Helper()
	db, err := sqldb.Open(context.Background(), filepath.Join(tb.TempDir(), "memory.db"), sqldb.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
