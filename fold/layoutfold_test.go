package fold_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestLayoutFoldIsTheNewestChapter: LayoutFold is when the newest visible
// block of level L3 or above was made, and StableAsOf the newest iteration
// the visible blocks made by then cover; both 0 for a run that never
// folded.
func TestLayoutFoldIsTheNewestChapter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 300, MaxOutputBytes: 2000, Budget: 8000, Seed: 5})
	blocks, err := eng.Fold.VisibleBlocks(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	laidOut, newest := 0, 0
	for _, b := range blocks {
		if b.Level >= fold.L3 {
			laidOut = max(laidOut, b.CreatedIter)
		}
		newest = max(newest, b.CreatedIter)
	}
	if laidOut == 0 || laidOut == newest {
		t.Fatalf("the test needs a chapter and blocks made after it: newest chapter at %d, newest block at %d", laidOut, newest)
	}
	asOf := 0
	for _, b := range blocks {
		if b.CreatedIter <= laidOut {
			asOf = max(asOf, b.Last)
		}
	}
	got, err := eng.Fold.LayoutFold(ctx, testrun.RunID)
	if err != nil || got != laidOut {
		t.Fatalf("LayoutFold = %d (%v), want %d", got, err, laidOut)
	}
	if got, err := eng.Fold.StableAsOf(ctx, testrun.RunID, laidOut); err != nil || got != asOf {
		t.Fatalf("StableAsOf(%d) = %d (%v), want %d", laidOut, got, err, asOf)
	}
	if got, err := eng.Fold.LayoutFold(ctx, "no-such-run"); err != nil || got != 0 {
		t.Fatalf("LayoutFold of a run with no block = %d (%v), want 0", got, err)
	}
	if got, err := eng.Fold.StableAsOf(ctx, "no-such-run", 100); err != nil || got != 0 {
		t.Fatalf("StableAsOf of a run with no block = %d (%v), want 0", got, err)
	}
}
