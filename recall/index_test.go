package recall_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// reopen closes eng and opens the same database again, collecting
// warnings.
func reopen(t *testing.T, eng *memory.Engine) (*memory.Engine, *[]string) {
	t.Helper()
	path := eng.Path()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	return openWarned(t, path)
}

// openWarned opens the database at path, collecting warnings; the engine
// is closed when the test ends, if the test has not closed it.
func openWarned(t *testing.T, path string) (*memory.Engine, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var warnings []string
	e2, err := memory.Open(context.Background(), memory.Config{DBPath: path, Budget: 8000, Warn: func(s string) {
		mu.Lock()
		warnings = append(warnings, s)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	return e2, &warnings
}

func findsMetrics(t *testing.T, eng *memory.Engine) {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].Content, "METRICS_PORT=9464") {
		t.Fatalf("retrieve lost the fact: %+v", hits)
	}
	if got, _ := retrievedText(t, eng); !strings.Contains(got, "METRICS_PORT=9464") {
		t.Fatalf("context lost the recall:\n%s", got)
	}
}

func TestLostIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	eng := testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics}), 8000, 4000)
	dir := eng.Recall.IndexPath()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no index at %s: %v", dir, err)
	}
	eng.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	e2, warnings := reopen(t, eng)
	findsMetrics(t, e2)
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "refilling") {
		t.Fatalf("want one warning about the lost index, got %q", *warnings)
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	eng := testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics}), 8000, 4000)
	dir := eng.Recall.IndexPath()
	eng.Close()
	// Overwrite every file of the index with garbage.
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.WriteFile(p, []byte("not an index"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	e2, warnings := reopen(t, eng)
	findsMetrics(t, e2)
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "unreadable") {
		t.Fatalf("want one warning about the corrupt index, got %q", *warnings)
	}
}

func TestCatchUpAfterACrashBeforeIndexing(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{{At: 250, Thought: plantMetrics.Thought, Calls: plantMetrics.Calls}})
	head := testrun.UpTo(events, 200)
	eng := testrun.Feed(t, head, 8000, 4000)
	ctx := context.Background()
	// The import commits and folds, then the process dies before the
	// index hears of it.
	if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, events[len(head):]); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scheduler.Step(ctx, testrun.RunID); err != nil {
		t.Fatal(err)
	}
	e2, warnings := reopen(t, eng)
	run, _ := e2.Journal.Run(ctx, testrun.RunID)
	hits, err := e2.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Matched[0] != 250 {
		t.Fatalf("the iterations committed before the crash were not caught up: %+v", hits)
	}
	if len(*warnings) != 0 {
		t.Fatalf("a catch-up is not worth a warning: %q", *warnings)
	}
}

// TestReindex rebuilds the index on purpose: the run is found again, and
// nothing warns that the index was lost.
func TestReindex(t *testing.T) {
	t.Parallel()
	eng, warnings := reopen(t, testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics}), 8000, 4000))
	var last, total int
	if err := eng.Reindex(context.Background(), func(d, n int) { last, total = d, n }); err != nil {
		t.Fatal(err)
	}
	if total != 300 || last != 300 {
		t.Fatalf("progress ended at %d of %d, want 300 of 300", last, total)
	}
	findsMetrics(t, eng)
	if len(*warnings) != 0 {
		t.Fatalf("a reindex asked for is not worth a warning: %q", *warnings)
	}
}
