package sqldb_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// TestBusyWriterGivesErrLocked holds a write transaction on one handle while
// another tries to write: after its busy timeout it must fail with ErrLocked,
// and once the first commits, the second can write.
func TestBusyWriterGivesErrLocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	a, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqldb.Open(ctx, path, sqldb.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	tx, err := a.Write.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO runs (id) VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	_, err = b.Write.BeginTxx(ctx, nil)
	if err == nil {
		t.Fatal("a second writer began while the first held the lock")
	}
	if !errors.Is(sqldb.Classify(err), sqldb.ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	// Readers are not blocked by the writer (WAL).
	var n int
	if err := b.Read.Get(&n, `SELECT COUNT(*) FROM runs`); err != nil || n != 0 {
		t.Fatalf("read beside a writer: n=%d err=%v", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write.Exec(`INSERT INTO runs (id) VALUES ('b')`); err != nil {
		t.Fatalf("write after the lock was released: %v", err)
	}
}

func TestOpenCreatesDirectoriesAndEscapesPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a dir", "with?odd#chars%", "memory.db")
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var file string
	if err := db.Write.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	if file != path {
		t.Fatalf("database file = %q, want %q", file, path)
	}
}

func TestClassifyLeavesOtherErrorsAlone(t *testing.T) {
	t.Parallel()
	other := errors.New("disk I/O error")
	if got := sqldb.Classify(other); got != other {
		t.Fatalf("Classify changed an unrelated error: %v", got)
	}
	if sqldb.Classify(nil) != nil {
		t.Fatal("Classify(nil) != nil")
	}
}

// TestOpenConnectsTheReaderOfAnExistingDatabase checks that Open of an
// existing database has its reader connected (and its schema read) by the
// time it returns, beside the writer's work rather than at the first read.
func TestOpenConnectsTheReaderOfAnExistingDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := db.Read.Stats().OpenConnections; n != 0 {
		t.Fatalf("a new database has %d reader connections open; the reader waits for the migrations", n)
	}
	db.Close()
	db, err = sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := db.Read.Stats().OpenConnections; n != 1 {
		t.Fatalf("Open of an existing database left %d reader connections open, want 1", n)
	}
	// The readers map the file; the writer does not.
	var mapped, writer int64
	if err := db.Read.GetContext(ctx, &mapped, "PRAGMA mmap_size"); err != nil {
		t.Fatal(err)
	}
	if err := db.Write.GetContext(ctx, &writer, "PRAGMA mmap_size"); err != nil {
		t.Fatal(err)
	}
	if mapped < 1<<30 || writer != 0 {
		t.Fatalf("mmap_size is %d on a reader and %d on the writer, want 1 GiB and 0", mapped, writer)
	}
}

// TestOneConnectionReadsThroughTheWriter opens an existing database with
// OneConnection: one connection in all, which reads what it wrote.
func TestOneConnectionReadsThroughTheWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openOneConnection(t)
	if db.Read != db.Write || db.Write.Stats().OpenConnections != 1 {
		t.Fatalf("one connection: read pool %p, write pool %p, %d open", db.Read, db.Write, db.Write.Stats().OpenConnections)
	}
	if err := db.Update(ctx, "", func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO recall_meta (key, value) VALUES ('k', 'v')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := db.Read.GetContext(ctx, &v, `SELECT value FROM recall_meta WHERE key = 'k'`); err != nil || v != "v" {
		t.Fatalf("read after write: %q, %v", v, err)
	}
	if n := db.Write.Stats().OpenConnections; n != 1 {
		t.Fatalf("%d connections open after a write and a read, want 1", n)
	}
}

// TestASnapshotTakesNoWriteLock: a read snapshot on the writer's connection
// (OneConnection, whose transactions begin IMMEDIATE) begins deferred, so
// that it neither waits for another process's writer nor keeps one waiting.
func TestASnapshotTakesNoWriteLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openOneConnection(t)
	other, err := sqldb.Open(ctx, db.Path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	writer, err := other.Write.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback()
	if _, err := writer.ExecContext(ctx, `INSERT INTO recall_meta (key, value) VALUES ('held', 'by another writer')`); err != nil {
		t.Fatal(err)
	}
	quick, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	start := time.Now()
	snap, err := db.Snapshot(quick)
	if err != nil {
		t.Fatalf("a snapshot while another process writes: %v", err)
	}
	defer snap.Rollback()
	var n int
	if err := snap.GetContext(quick, &n, `SELECT COUNT(*) FROM recall_meta`); err != nil {
		t.Fatalf("read in a snapshot while another process writes: %v (after %v)", err, time.Since(start))
	}
	if n != 0 {
		t.Errorf("the snapshot sees %d rows of recall_meta, want 0: the other writer has not committed", n)
	}
}

// openOneConnection opens a new database again with OneConnection, as a
// sync does: one connection, the writer's, for reads too.
func openOneConnection(t *testing.T) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), mustOpen(t).Path, sqldb.Options{OneConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
