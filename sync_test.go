package memory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/lockfile"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

func openSyncEngine(t *testing.T) (*memory.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	// As the sync command opens it.
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(dir, ".delta", "memory.db"), Budget: 8000, OneConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, dir
}

func TestSyncWithoutJournalWritesAShortNote(t *testing.T) {
	t.Parallel()
	eng, dir := openSyncEngine(t)
	ctx := context.Background()
	path := memory.JournalPath(dir, "run-1")
	res, err := eng.Sync(ctx, memory.SyncOptions{Journal: path})
	if err != nil {
		t.Fatalf("missing journal: %v", err)
	}
	if res.Context != nil || !strings.Contains(res.Markdown, "no journal yet") {
		t.Fatalf("missing journal: context %v, markdown %q", res.Context, res.Markdown)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, nil, 0o644)
	if res, err = eng.Sync(ctx, memory.SyncOptions{Journal: path}); err != nil || !strings.Contains(res.Markdown, "no events yet") {
		t.Fatalf("empty journal: %v, %q", err, res.Markdown)
	}
	// Half a line: an append in progress, nothing complete to show yet.
	os.WriteFile(path, []byte(`{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_ST`), 0o644)
	if res, err = eng.Sync(ctx, memory.SyncOptions{Journal: path}); err != nil || res.Context != nil || !strings.Contains(res.Markdown, "no complete events") {
		t.Fatalf("partial line: %v, %q", err, res.Markdown)
	}
}

func TestSyncImportsOnlyNewLinesAndLeavesTheNewestToTheRuntime(t *testing.T) {
	t.Parallel()
	eng, dir := openSyncEngine(t)
	ctx := context.Background()
	fx, first := syncTwenty(t, eng, dir)
	if first.Import.Iterations != 20 || first.Import.NewIterations != 20 {
		t.Fatalf("first sync: %+v", first.Import)
	}
	fx.append(t, 20)
	second, err := eng.Sync(ctx, fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Import.Resumed || second.Import.NewIterations != 1 || second.Import.Skipped != 0 {
		t.Fatalf("second sync should read only the new lines: %+v", second.Import)
	}
	var working []string
	for _, p := range second.Context.Partitions {
		if p.Name == window.Working {
			for _, s := range p.Sections {
				working = append(working, s.Source)
			}
		}
	}
	for _, src := range working {
		for _, n := range []string{"iteration:19", "iteration:20", "iteration:21"} {
			if src == n {
				t.Fatalf("Working shows %s, one of the 3 newest the runtime shows itself: %v", src, working)
			}
		}
	}
	if len(working) == 0 {
		t.Fatalf("Working should still show older unfolded iterations")
	}
	if second.Context.Tokens > second.Context.Budget {
		t.Fatalf("%d tokens over the budget %d", second.Context.Tokens, second.Context.Budget)
	}
	again, err := eng.Sync(ctx, fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Markdown != second.Markdown {
		t.Fatalf("a sync with nothing new changed the output")
	}
}

func TestSyncWaitsForAnotherSyncThenFailsClearly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, ".delta", "memory.db")
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: db, LockWait: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	fx := &syncFixture{ctx: ctx, eng: eng, chunks: generatedChunks(t, 3)}
	fx.opts = memory.SyncOptions{Journal: memory.JournalPath(dir, "bench")}
	fx.openJournal(t)
	fx.append(t, 0)
	// Another process is syncing: it holds the lock beside the database.
	held, err := lockfile.Acquire(ctx, db+".lock", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Sync(ctx, fx.opts)
	if !errors.Is(err, sqldb.ErrLocked) || !strings.Contains(err.Error(), "memory.db.lock") {
		t.Fatalf("sync while another holds the lock: %v, want ErrLocked naming the lock file", err)
	}
	held.Release()
	res, err := eng.Sync(ctx, fx.opts)
	if err != nil || res.Import.Iterations != 1 {
		t.Fatalf("sync after the other finished: %v, %+v", err, res.Import)
	}
}

// TestSyncOpensTheIndexOnlyWhenDue checks that a sync leaves the recall
// index closed until it lacks recall.index_every iterations (8 here), and
// that the sync that catches it up refills a lost index, with one
// warning.
func TestSyncOpensTheIndexOnlyWhenDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, ".delta", "memory.db")
	writeSettings(t, dbPath, "recall:\n  index_every: 8\n")
	var warnings []string
	cfg := memory.Config{DBPath: dbPath, Budget: 8000, Warn: func(s string) { warnings = append(warnings, s) }}
	eng, err := memory.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fx, first := syncTwenty(t, eng, dir)
	ixPath := eng.Recall.IndexPath()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ixPath); err != nil {
		t.Fatalf("a sync of 20 new iterations did not index them: %v", err)
	}
	if err := os.RemoveAll(ixPath); err != nil {
		t.Fatal(err)
	}
	if eng, err = memory.Open(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	defer func() { eng.Close() }()
	fx.eng = eng
	same, err := eng.Sync(ctx, fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	if same.Markdown != first.Markdown {
		t.Fatal("a sync with nothing new changed the output")
	}
	// Iterations 21 to 27: the index lacks 1 to 7, and stays closed.
	for i := 20; i < 27; i++ {
		fx.append(t, i)
		if _, err := eng.Sync(ctx, fx.opts); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(ixPath); !errors.Is(err, os.ErrNotExist) || len(warnings) != 0 {
			t.Fatalf("sync of iteration %d opened the index before it was due: %v, warnings %q", i+1, err, warnings)
		}
	}
	fx.append(t, 27)
	if _, err := eng.Sync(ctx, fx.opts); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "refilling") {
		t.Fatalf("want one warning about the lost index, got %q", warnings)
	}
	run, err := eng.Journal.Run(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := eng.Recall.CatchUp(ctx, run, nil); err != nil || n != 0 {
		t.Fatalf("the sync left %d documents unindexed (%v)", n, err)
	}
}

// TestExplicitRecallCatchesTheIndexUp syncs 21 iterations with the
// default recall.index_every (32): the syncs leave the index closed, and a
// retrieve indexes all 21 before it searches.
func TestExplicitRecallCatchesTheIndexUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, dir := openSyncEngine(t)
	fx, _ := syncTwenty(t, eng, dir)
	fx.append(t, 20)
	if _, err := eng.Sync(ctx, fx.opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(eng.Recall.IndexPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("syncs of 21 iterations opened the index (due at 32): %v", err)
	}
	run, err := eng.Journal.Run(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Recall.Retrieve(ctx, run, recall.Query{Keywords: []string{"config"}, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if n, err := eng.Recall.CatchUp(ctx, run, nil); err != nil || n != 0 {
		t.Fatalf("retrieve left %d documents unindexed (%v)", n, err)
	}
}

// writeSettings writes memory.yaml beside the database.
func writeSettings(t *testing.T, dbPath, yaml string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dbPath), "memory.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShortSyncsKeepTheIndexMerged opens the engine for one sync at a time,
// as Delta Engine's generator process does: each sync adds a segment or
// two to the recall index, and closing must leave them merged as the merge
// policy says, however soon after the sync it comes, or segments pile up
// and every search and every open visits each one.
func TestShortSyncsKeepTheIndexMerged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := memory.Config{DBPath: filepath.Join(dir, ".delta", "memory.db"), Budget: 8000}
	// Every sync writes to the index.
	writeSettings(t, cfg.DBPath, "recall:\n  index_every: 1\n")
	fx := &syncFixture{ctx: ctx, chunks: generatedChunks(t, 80)}
	fx.opts = memory.SyncOptions{Journal: memory.JournalPath(dir, "bench"), KeepRecent: memory.DefaultKeepRecent}
	fx.openJournal(t)
	var ixPath string
	for i := range 80 {
		fx.append(t, i)
		eng, err := memory.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Sync(ctx, fx.opts); err != nil {
			t.Fatal(err)
		}
		ixPath = eng.Recall.IndexPath()
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
	}
	segments, err := filepath.Glob(filepath.Join(ixPath, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	// The policy keeps at most 10 segments per tier; 80 small batches
	// fill two tiers at most.
	if len(segments) > 20 {
		t.Fatalf("%d segments after 80 one-sync sessions: the merges did not run", len(segments))
	}
}

// syncTwenty writes the first 20 of 30 generated iterations to a journal in
// dir and syncs them through eng, keeping the 3 newest native.
func syncTwenty(t *testing.T, eng *memory.Engine, dir string) (*syncFixture, memory.SyncResult) {
	t.Helper()
	ctx := context.Background()
	fx := &syncFixture{ctx: ctx, eng: eng, chunks: generatedChunks(t, 30)}
	fx.opts = memory.SyncOptions{Journal: memory.JournalPath(dir, "bench"), KeepRecent: 3}
	fx.openJournal(t)
	for i := 0; i < 20; i++ {
		fx.append(t, i)
	}
	first, err := eng.Sync(ctx, fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	return fx, first
}

// TestIndexIfDueCatchesUpOneEarly runs syncs as the resident server does:
// engines made by OpenOn on one kept database, each released, and
// IndexIfDue(…, 1) after each sync. With index_every 4, the catch-up comes
// after the sync that leaves the index 3 behind, so no sync finds it due,
// and Release lets another engine open the index.
func TestIndexIfDueCatchesUpOneEarly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, ".delta", "memory.db")
	writeSettings(t, dbPath, "recall:\n  index_every: 4\n")
	cfg := memory.Config{DBPath: dbPath, Budget: 8000}
	eng, err := memory.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fx, _ := syncTwenty(t, eng, dir) // indexes the 20
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sqldb.Open(ctx, dbPath, sqldb.Options{OneConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	indexed := func(e *memory.Engine) int {
		t.Helper()
		run, err := e.Journal.Run(ctx, "bench")
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Read.GetContext(ctx, &n, "SELECT indexed_iter FROM index_positions WHERE worker = '' AND run_id = ?", run.ID); err != nil {
			t.Fatal(err)
		}
		return run.Iterations - n
	}
	for i := 20; i < 30; i++ { // the fixture holds 30
		fx.append(t, i)
		e, err := memory.OpenOn(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fx.eng = e
		if _, err := e.Sync(ctx, fx.opts); err != nil {
			t.Fatal(err)
		}
		behind := indexed(e)
		if behind >= 4 {
			t.Fatalf("iteration %d: the sync found the index %d behind, want the catch-up done before", i+1, behind)
		}
		did, err := e.IndexIfDue(ctx, "bench", 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := behind >= 3; did != want {
			t.Fatalf("iteration %d: IndexIfDue with the index %d behind did %v, want %v", i+1, behind, did, want)
		}
		if did && indexed(e) != 0 {
			t.Fatalf("iteration %d: IndexIfDue left %d iterations unindexed", i+1, indexed(e))
		}
		if err := e.Release(); err != nil {
			t.Fatal(err)
		}
	}
	// Released, the index opens in another engine, and the database is
	// still open to its owner.
	other, err := memory.Open(ctx, memory.Config{DBPath: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	run, err := other.Journal.Run(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Recall.CatchUp(ctx, run, nil); err != nil {
		t.Fatalf("another engine could not open the released index: %v", err)
	}
	if err := db.Read.PingContext(ctx); err != nil {
		t.Fatalf("Release closed the database: %v", err)
	}
	if _, err := memory.OpenOn(db, memory.Config{DBPath: filepath.Join(dir, "other.db")}); err == nil {
		t.Fatal("OpenOn with settings naming another database: want an error")
	}
}
