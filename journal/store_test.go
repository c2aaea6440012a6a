package journal_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// TestConcurrentImportsOfOneFile imports the same journal from several Store
// handles at once, as two `delta memory sync` processes would: every event
// must be stored exactly once and no import may fail.
func TestConcurrentImportsOfOneFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "memory.db")
	path := filepath.Join(dir, "journal.jsonl")
	var lines []string
	lines = append(lines, smallJournal()[:2]...)
	for i := 0; i < 300; i++ {
		seq := 3 + i*3
		id := "c" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		lines = append(lines, thought(seq, "step", "read_file:"+id), request(seq+1, id, "read_file", "cat x"), result(seq+2, id, "SUCCESS", "ok"))
	}
	writeLines(t, path, lines, true)

	const workers = 4
	stores := make([]*journal.Store, workers)
	for i := range stores {
		s, err := journal.Open(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	added := make([]int, workers)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := stores[i].ImportFile(ctx, path, journal.ImportOptions{})
			errs[i], added[i] = err, res.Added
		}()
	}
	wg.Wait()
	total := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		total += added[i]
	}
	if total != len(lines) {
		t.Fatalf("workers added %v events in all, want %d", added, len(lines))
	}
	run, err := stores[0].Run(ctx, "run-1")
	if err != nil || run.Events != int64(len(lines)) || run.Iterations != 300 {
		t.Fatalf("run = %+v, %v", run, err)
	}
}

func TestMigrationsOnFreshAndReopenedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "memory.db")
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := db.SchemaVersion(ctx)
	if err != nil || v1 < 1 {
		t.Fatalf("version after first open = %d, %v", v1, err)
	}
	s := journal.NewStore(db)
	jpath := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, jpath, smallJournal(), true)
	mustImport(t, s, jpath, journal.ImportOptions{})
	db.Close()

	db, err = sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if v2, _ := db.SchemaVersion(ctx); v2 != v1 {
		t.Fatalf("version changed on reopen: %d -> %d", v1, v2)
	}
	if run, err := journal.NewStore(db).Run(ctx, "run-1"); err != nil || run.Events != 12 {
		t.Fatalf("data lost on reopen: %+v %v", run, err)
	}
	var mode string
	db.Read.Get(&mode, "PRAGMA journal_mode")
	var fk int
	db.Write.Get(&fk, "PRAGMA foreign_keys")
	if mode != "wal" || fk != 1 {
		t.Fatalf("journal_mode = %q, foreign_keys = %d", mode, fk)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Pretend a newer delta applied migration 999.
	if _, err := db.Write.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (999, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqldb.Open(ctx, path, sqldb.Options{})
	var se *sqldb.SchemaError
	if !errors.Is(err, sqldb.ErrSchemaTooNew) || !errors.As(err, &se) || se.DBVersion != 999 {
		t.Fatalf("err = %v", err)
	}
}

func TestReadOnlyPoolRefusesWrites(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	if _, err := s.DB().Read.Exec(`DELETE FROM runs`); err == nil {
		t.Fatal("the read pool accepted a write")
	}
}
