package recall_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
)

// TestIndexBehindTheDatabaseIsCaughtUp puts back an older copy of the
// index (the same generation, so it passes for the index the database
// wrote): SQLite's positions are then ahead of what the index holds, as
// they would be had the index lost its last writes. The index's own record
// of its positions says so, and the catch-up starts from there, with a
// warning, instead of leaving iterations 201 to 300 out of recall.
func TestIndexBehindTheDatabaseIsCaughtUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	events := testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{{At: 250, Thought: plantMetrics.Thought, Calls: plantMetrics.Calls}})
	head := testrun.UpTo(events, 200)
	eng := testrun.Feed(t, head, 8000, 4000)
	dir := eng.Recall.IndexPath()
	if err := eng.Recall.Close(); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "old.bleve")
	copyDir(t, dir, old)
	testrun.FeedMore(t, eng, events[len(head):], 4000)
	if err := eng.Recall.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	copyDir(t, old, dir)

	e2, warnings := reopen(t, eng)
	run, err := e2.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := e2.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Iterations[0] != 250 {
		t.Fatalf("the iterations the index lost were not caught up: %+v", hits)
	}
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "catching it up") {
		t.Fatalf("want one warning about the index behind the database, got %q", *warnings)
	}
	_, warnings = reopen(t, e2)
	if len(*warnings) != 0 {
		t.Fatalf("the caught-up index is caught up again: %q", *warnings)
	}
}

// copyDir copies the files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
