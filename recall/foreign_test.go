package recall_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// TestAnotherDatabasesIndexIsRebuilt leaves the index of one database
// beside another at the same path: the first removed and a new one made
// there (the user starting over with rm memory.db), or the first replaced
// by a copy of another. The old index holds a run of the same id, longer,
// with a fact at iteration 250 that the new database never saw. Indexing
// the new run again from the start overwrites iterations 1 to 200 only, so
// a recall of the fact found the old document, and blocks the new run does
// not have. The index must be made anew, with a warning.
func TestAnotherDatabasesIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// replace puts the new database at path, where the old one was,
		// and returns the warnings of the engines it opened there.
		replace func(t *testing.T, path string) []string
	}{
		{"removed and made anew", func(t *testing.T, path string) []string {
			eng, warnings := openWarned(t, path)
			testrun.FeedMore(t, eng, newRun(t), 4000)
			if err := eng.Close(); err != nil {
				t.Fatal(err)
			}
			return *warnings
		}},
		{"replaced by a copy", func(t *testing.T, path string) []string {
			b := closeAndRead(t, testrun.Feed(t, newRun(t), 8000, 4000))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			old := metricsAt250(t)
			eng := testrun.Feed(t, old, 8000, 4000)
			path, dir := eng.Path(), eng.Recall.IndexPath()
			if err := eng.Close(); err != nil {
				t.Fatal(err)
			}
			removeFiles(t, path, "", "-wal", "-shm")
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("the old index is gone before the test: %v", err)
			}
			made := tc.replace(t, path)

			e2, opened := openWarned(t, path)
			run, err := e2.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if run.Iterations != 200 {
				t.Fatalf("the new database holds %d iterations, want 200", run.Iterations)
			}
			if _, err := e2.Recall.CatchUp(ctx, run, nil); err != nil {
				t.Fatal(err)
			}
			warnings := append(made, *opened...)
			if len(warnings) != 1 || !strings.Contains(warnings[0], "did not write") {
				t.Fatalf("want one warning that the index was another database's, got %q", warnings)
			}
			holdsWhatAReindexMakes(t, e2)
			// The rebuilt index is this database's: a later open says nothing.
			_, again := reopen(t, e2)
			if len(*again) != 0 {
				t.Fatalf("the rebuilt index was not adopted: %q", *again)
			}
		})
	}
}

// newRun is a run of the test run's id that shares nothing with the
// planted one past its first 200 iterations: another seed, and shorter.
func newRun(t *testing.T) []journal.Event {
	return testrun.Planted(t, testrun.Options{Iterations: 200, Seed: 5}, nil)
}

// TestADatabasePutBackToAnOlderCopyIsIndexedAgain backs the database up at
// iteration 200, goes on to 300 (a fact at 250), and puts the backup back
// beside the index: the same generation, so the index passes for this
// database's, but it holds iterations 201 to 300. The catch-up must index
// the run again from the start and leave nothing of them, and once the run
// goes on again the fact is found where it is.
func TestADatabasePutBackToAnOlderCopyIsIndexedAgain(t *testing.T) {
	t.Parallel()
	events := metricsAt250(t)
	head := testrun.UpTo(events, 200)
	eng := testrun.Feed(t, head, 8000, 4000)
	path := eng.Path()
	backup := closeAndRead(t, eng)
	eng, _ = openWarned(t, path)
	testrun.FeedMore(t, eng, events[len(head):], 4000)
	findsMetrics(t, eng)
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	removeFiles(t, path, "-wal", "-shm")
	if err := os.WriteFile(path, backup, 0o644); err != nil {
		t.Fatal(err)
	}

	e2, warnings := openWarned(t, path)
	_, written, blocks := caughtUp(t, e2)
	if want := 200 + blocks; written != want {
		t.Fatalf("the catch-up wrote %d documents, want the whole run again: 200 iterations and %d blocks", written, blocks)
	}
	// Nothing of iterations 201 to 300 is left.
	holdsWhatAReindexMakes(t, e2)
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "older copy") {
		t.Fatalf("want one warning that the database is older than the index, got %q", *warnings)
	}
	testrun.FeedMore(t, e2, events[len(head):], 4000)
	findsMetrics(t, e2)
}

// TestAnIndexAheadOfTheRecordedPositionIsKept lowers the position the
// database records, as a crash between the index's write and that record
// leaves it: the index holds no more than the run, so it is caught up from
// the record, not rebuilt, and says nothing.
func TestAnIndexAheadOfTheRecordedPositionIsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics}), 8000, 4000)
	path := eng.Path()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sqldb.Open(ctx, path, sqldb.Options{OneConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Write.ExecContext(ctx, `UPDATE index_positions SET indexed_iter = 100, indexed_block = 0 WHERE run_id = ?`, testrun.RunID)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("lower the recorded position: %d rows, %v", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	e2, warnings := openWarned(t, path)
	_, written, blocks := caughtUp(t, e2)
	// Iterations 101 to 300, and every block (the record lost them too);
	// a rebuild would write iterations 1 to 100 as well.
	if want := 200 + blocks; written != want {
		t.Fatalf("the catch-up wrote %d documents, want %d: iterations 101 to 300 and %d blocks", written, want, blocks)
	}
	findsMetrics(t, e2)
	if len(*warnings) != 0 {
		t.Fatalf("an index ahead of the record only is not worth a warning: %q", *warnings)
	}
}

// TestARecallOverAnOlderReadOfTheRunKeepsTheIndex reads the run at
// iteration 200, then lets the run go on to 300 and be indexed (another
// process's sync, between a retrieve's read of the run and its search).
// The index is then ahead of the caller's copy of the run but not of the
// database: it is kept, with no warning, and the recall stays within the
// run it was given.
func TestARecallOverAnOlderReadOfTheRunKeepsTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	events := metricsAt250(t)
	head := testrun.UpTo(events, 200)
	eng := testrun.Feed(t, head, 8000, 4000)
	e2, warnings := reopen(t, eng)
	old, err := e2.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	testrun.FeedMore(t, e2, events[len(head):], 4000)
	if written, err := e2.Recall.CatchUp(ctx, old, nil); err != nil || written != 0 {
		t.Fatalf("a catch-up over the older read wrote %d documents (%v), want none: the index holds the run", written, err)
	}
	hits, err := e2.Retrieve(ctx, old, recall.Query{Keywords: []string{"METRICS_PORT"}, Limit: 5, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Iterations[0] > old.Iterations || h.Iterations[1] > old.Iterations {
			t.Fatalf("a hit past the run as read (%d iterations): %+v", old.Iterations, h)
		}
	}
	if len(*warnings) != 0 {
		t.Fatalf("an index ahead of an older read of the run is not worth a warning: %q", *warnings)
	}
	findsMetrics(t, e2)
}

// metricsAt250 is a planted run of 300 iterations with the metrics port
// read at iteration 250.
func metricsAt250(t *testing.T) []journal.Event {
	return testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{{At: 250, Thought: plantMetrics.Thought, Calls: plantMetrics.Calls}})
}

// holdsWhatAReindexMakes fails unless eng's index holds as many documents
// as a reindex of its database makes: none of another database's, or of
// iterations the database no longer has, are left.
func holdsWhatAReindexMakes(t *testing.T, eng *memory.Engine) {
	t.Helper()
	dir := eng.Recall.IndexPath()
	if err := eng.Recall.Close(); err != nil {
		t.Fatal(err)
	}
	held := indexDocs(t, dir)
	if err := eng.Reindex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := eng.Recall.Close(); err != nil {
		t.Fatal(err)
	}
	if rebuilt := indexDocs(t, dir); held != rebuilt {
		t.Fatalf("the index holds %d documents, %d once rebuilt from the database: documents it does not hold were left", held, rebuilt)
	}
}

// closeAndRead closes eng, which checkpoints its WAL, so that the
// database is the one file, and returns that file's bytes.
func closeAndRead(t *testing.T, eng *memory.Engine) []byte {
	t.Helper()
	path := eng.Path()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// removeFiles removes path with each suffix, where it exists.
func removeFiles(t *testing.T, path string, suffixes ...string) {
	t.Helper()
	for _, suffix := range suffixes {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// indexDocs counts the documents of the closed index at dir.
func indexDocs(t *testing.T, dir string) uint64 {
	t.Helper()
	bi, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer bi.Close()
	n, err := bi.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// caughtUp catches eng's index up with the test run, and returns the run,
// the documents the catch-up wrote and the run's blocks.
func caughtUp(t *testing.T, eng *memory.Engine) (journal.Run, int, int) {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	written, err := eng.Recall.CatchUp(ctx, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := eng.Fold.AllBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return run, written, len(blocks)
}
