package fold_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestLastFoldIsTheNewestVisibleBlock: LastFold is when the newest block
// the window shows was made, and 0 for a run that never folded.
func TestLastFoldIsTheNewestVisibleBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 300, MaxOutputBytes: 2000, Budget: 8000, Seed: 5})
	blocks, err := eng.Fold.VisibleBlocks(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("the run never folded; the test needs blocks")
	}
	want := 0
	for _, b := range blocks {
		want = max(want, b.CreatedIter)
	}
	got, err := eng.Fold.LastFold(ctx, testrun.RunID)
	if err != nil || got != want {
		t.Fatalf("LastFold = %d (%v), want %d", got, err, want)
	}
	if got, err := eng.Fold.LastFold(ctx, "no-such-run"); err != nil || got != 0 {
		t.Fatalf("LastFold of a run with no block = %d (%v), want 0", got, err)
	}
}
