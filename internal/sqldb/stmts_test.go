package sqldb_test

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestCachedQueries runs reads through the cached statements: results must
// follow writes made since a statement was prepared, and a query that
// cannot be prepared must report its error.
func TestCachedQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	const count = `SELECT count(*) FROM runs WHERE id >= ?`
	for i, id := range []string{"a", "b", "c"} {
		if _, err := db.Write.ExecContext(ctx, `INSERT INTO runs (id) VALUES (?)`, id); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := sqlx.GetContext(ctx, db.Cached(), &n, count, "a"); err != nil || n != i+1 {
			t.Fatalf("after %d inserts: count %d, err %v", i+1, n, err)
		}
	}
	var ids []string
	if err := sqlx.SelectContext(ctx, db.Cached(), &ids, `SELECT id FROM runs WHERE id > ? ORDER BY id`, "a"); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "b" || ids[1] != "c" {
		t.Fatalf("ids = %v, want [b c]", ids)
	}
	var n int
	if err := sqlx.GetContext(ctx, db.Cached(), &n, `SELECT count(*) FROM no_such_table`); err == nil {
		t.Fatal("a query on a missing table succeeded")
	}
	if _, err := db.Cached().QueryxContext(ctx, `SELECT nonsense FROM`); err == nil {
		t.Fatal("a malformed query succeeded")
	}
}
