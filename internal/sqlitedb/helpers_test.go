package sqlitedb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/internal/sqlitedb"
)

// mustOpen opens a new database in tb.TempDir, closed at cleanup.
func mustOpen(tb testing.TB) *sqlitedb.DB {
	tb.Helper()
	db, err := sqlitedb.Open(context.Background(), filepath.Join(tb.TempDir(), "memory.db"), sqlitedb.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
