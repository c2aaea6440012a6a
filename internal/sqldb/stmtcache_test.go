package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"
)

// TestStatementCacheKeepsQueriesCorrect runs what the cache must get right
// on a real database: repeated statements, the same query nested while its
// rows are open, a failing statement followed by a good one, scripts,
// transactions that roll back, and more distinct queries than it keeps.
func TestStatementCacheKeepsQueriesCorrect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := newCachingConnector("file:" + filepath.Join(t.TempDir(), "c.db") + "?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db := openTestPool(t, c)
	if _, err := db.ExecContext(ctx, "CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL); CREATE INDEX kv_v ON kv (v);"); err != nil {
		t.Fatalf("script: %v", err)
	}
	for i := 1; i <= 20; i++ {
		if _, err := db.ExecContext(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	// The same query, nested on one connection: the inner one cannot share
	// the outer's statement while its rows are open.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := conn.QueryContext(ctx, "SELECT k FROM kv WHERE k <= ? ORDER BY k", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var k int
		if err := outer.Scan(&k); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRowContext(ctx, "SELECT k FROM kv WHERE k <= ? ORDER BY k", 20-k).Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%d", k, n))
	}
	outer.Close()
	conn.Close()
	if fmt.Sprint(got) != "[1:1 2:1 3:1]" {
		t.Fatalf("nested queries: %v", got)
	}
	// A constraint failure, then the same statement succeeds.
	if _, err := db.ExecContext(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", 1, "dup"); err == nil {
		t.Fatal("duplicate key: want an error")
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", 21, "v21"); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
	// A transaction that rolls back leaves nothing behind.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", 22, "v22"); err != nil {
		t.Fatal(err)
	}
	var inTx int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&inTx); err != nil || inTx != 22 {
		t.Fatalf("count inside the transaction: %d, %v", inTx, err)
	}
	tx.Rollback()
	var after int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&after); err != nil || after != 21 {
		t.Fatalf("count after rollback: %d, %v", after, err)
	}
	// More distinct statements than the cache keeps.
	for i := 0; i < maxCachedStmts+10; i++ {
		var v string
		q := fmt.Sprintf("SELECT v FROM kv WHERE k = ? AND %d = %d", i, i)
		if err := db.QueryRowContext(ctx, q, 5).Scan(&v); err != nil || v != "v5" {
			t.Fatalf("query %d: %q, %v", i, v, err)
		}
	}
	// A schema change under a cached statement: SQLite prepares it again.
	if _, err := db.ExecContext(ctx, "ALTER TABLE kv ADD COLUMN w TEXT"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&n); err != nil || n != 21 {
		t.Fatalf("after ALTER TABLE: %d, %v", n, err)
	}
}

func openTestPool(t *testing.T, c driver.Connector) *sql.DB {
	t.Helper()
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}
