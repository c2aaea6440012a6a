package sqldb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestIsPostgres(t *testing.T) {
	for target, want := range map[string]bool{
		"postgres://u@h/db": true, "postgresql://h/db": true, "POSTGRES://h/db": true,
		"memory.db": false, ".delta/memory.db": false, "/tmp/postgres/memory.db": false, "": false,
	} {
		if got := sqldb.IsPostgres(target); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", target, got, want)
		}
	}
}

// Both dialects migrate to the same version, and PostgreSQL's schema holds
// every table SQLite's does, with the same columns in the same order.
func TestPostgresMigratesToTheSameSchema(t *testing.T) {
	ctx := context.Background()
	lite := mustOpen(t)
	pg, err := sqldb.Open(ctx, pgtest.URL(t), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if pg.Dialect != sqldb.Postgres || lite.Dialect != sqldb.SQLite {
		t.Fatalf("dialects %s and %s", lite.Dialect, pg.Dialect)
	}
	lv, err := lite.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := pg.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lv != pv || pv == 0 {
		t.Fatalf("schema versions: SQLite %d, PostgreSQL %d", lv, pv)
	}
	var tables []string
	if err := lite.Read.SelectContext(ctx, &tables, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'goose_db_version' ORDER BY name`); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		var lcols, pcols []string
		if err := lite.Read.SelectContext(ctx, &lcols, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table); err != nil {
			t.Fatal(err)
		}
		if err := pg.Read.SelectContext(ctx, &pcols, `SELECT column_name FROM information_schema.columns WHERE table_name = ? AND column_name != 'rowid' ORDER BY ordinal_position`, table); err != nil {
			t.Fatal(err)
		}
		if strings.Join(lcols, ",") != strings.Join(pcols, ",") {
			t.Errorf("table %s: SQLite columns %v, PostgreSQL %v", table, lcols, pcols)
		}
	}
	if len(tables) < 10 {
		t.Fatalf("only %d tables: %v", len(tables), tables)
	}
}

// The stores' SQL runs on PostgreSQL as written: placeholders, numbered
// ones, index hints, quoted text and booleans.
func TestPostgresTakesTheStoresSQL(t *testing.T) {
	ctx := context.Background()
	pg, err := sqldb.Open(ctx, pgtest.URL(t), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	err = pg.Update(ctx, "", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO runs (id, task) VALUES (?, ?)`, "r1", "it's a 'task'? yes"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO iterations (run_id, number, first_seq, last_seq, has_error) VALUES (?1, ?2, ?2, ?2, ?3)`, "r1", 7, true)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Task   string `db:"task"`
		Number int    `db:"number"`
	}
	if err := pg.Read.GetContext(ctx, &got, `SELECT r.task, i.number FROM runs r JOIN iterations i INDEXED BY iterations_errors ON i.run_id = r.id
		WHERE r.id = ? AND i.has_error = ? AND r.task LIKE '%?%'`, "r1", true); err != nil {
		t.Fatal(err)
	}
	if got.Task != "it's a 'task'? yes" || got.Number != 7 {
		t.Fatalf("read back %+v", got)
	}
}

// A write that waits past the busy timeout for another's lock of the same
// run fails with ErrLocked, as on SQLite; one of another run goes on, and
// one of no run in particular waits for them all.
func TestPostgresBusyWriterGivesErrLocked(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, err := sqldb.Open(ctx, url, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqldb.Open(ctx, url, sqldb.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Update(ctx, "r1", func(tx *sqlx.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	err = b.Update(ctx, "r1", func(tx *sqlx.Tx) error { return nil })
	if !errors.Is(err, sqldb.ErrLocked) {
		t.Fatalf("a second writer of the run: %v, want ErrLocked", err)
	}
	if err := b.Update(ctx, "r2", func(tx *sqlx.Tx) error { return nil }); err != nil {
		t.Fatalf("a writer of another run waited: %v", err)
	}
	if err := b.Update(ctx, "", func(tx *sqlx.Tx) error { return nil }); !errors.Is(err, sqldb.ErrLocked) {
		t.Fatalf("a writer of the whole database: %v, want ErrLocked", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPostgresBadURLSaysWhatToCheck(t *testing.T) {
	dir := t.TempDir()
	_, err := sqldb.Open(context.Background(), "postgres://nobody:secret@/nodb?host="+filepath.Join(dir, "none")+"&connect_timeout=2", sqldb.Options{})
	if err == nil {
		t.Fatal("opened a database that is not there")
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "is the server up") {
		t.Errorf("the error does not say what to check: %v", err)
	}
}

// Text PostgreSQL refuses (a NUL byte, bytes that are not UTF-8) is stored
// with U+FFFD in their place; bytes bound to a BYTEA column stay as they are.
func TestPostgresStoresTextSQLiteWould(t *testing.T) {
	ctx := context.Background()
	pg, err := sqldb.Open(ctx, pgtest.URL(t), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	raw := []byte("a\x00b\xffc")
	err = pg.Update(ctx, "", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO runs (id, task) VALUES (?, ?)`, "r", "nul\x00here \xff"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO events (run_id, seq, type, payload) VALUES (?, 1, 'THOUGHT', ?)`, "r", raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var task string
	var payload []byte
	if err := pg.Read.GetContext(ctx, &task, `SELECT task FROM runs WHERE id = 'r'`); err != nil {
		t.Fatal(err)
	}
	if err := pg.Read.GetContext(ctx, &payload, `SELECT payload FROM events WHERE run_id = 'r'`); err != nil {
		t.Fatal(err)
	}
	if task != "nul\uFFFDhere \uFFFD" {
		t.Errorf("task stored as %q", task)
	}
	if string(payload) != string(raw) {
		t.Errorf("payload stored as %q, want %q", payload, raw)
	}
}

// A run's lock lets one holder in at a time, and a holder of the whole
// database's keeps every run out; different runs do not wait.
func TestPostgresRunLocks(t *testing.T) {
	ctx := context.Background()
	pg, err := sqldb.Open(ctx, pgtest.URL(t), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	wait := 100 * time.Millisecond
	a, err := pg.LockRun(ctx, "a", wait)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.LockRun(ctx, "a", wait); !errors.Is(err, sqldb.ErrLocked) {
		t.Fatalf("a second holder of run a: %v, want ErrLocked", err)
	}
	b, err := pg.LockRun(ctx, "b", wait)
	if err != nil {
		t.Fatalf("run b waited for run a: %v", err)
	}
	if _, err := pg.LockRun(ctx, "", wait); !errors.Is(err, sqldb.ErrLocked) {
		t.Fatalf("the whole database while runs are held: %v, want ErrLocked", err)
	}
	a.Release()
	b.Release()
	b.Release() // twice is harmless
	all, err := pg.LockRun(ctx, "", wait)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.LockRun(ctx, "c", wait); !errors.Is(err, sqldb.ErrLocked) {
		t.Fatalf("run c while the database is held: %v, want ErrLocked", err)
	}
	all.Release()
	if c, err := pg.LockRun(ctx, "c", wait); err != nil {
		t.Fatal(err)
	} else {
		c.Release()
	}
}
