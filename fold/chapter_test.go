package fold_test

import (
	"context"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestMilestoneChaptersStartAtThePreviousMilestone folds a long generated
// run at a small budget, where Long-term cascades merge chapters into
// phases, and checks that each milestone chapter still covers exactly the
// iterations since the previous milestone: a phase must not straddle the
// chapter being written.
func TestMilestoneChaptersStartAtThePreviousMilestone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 1200, MaxOutputBytes: 3000, Budget: 4000, Seed: 11})
	blocks, err := eng.Fold.AllBlocks(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var chapters []*fold.Block
	cascades := 0
	for _, b := range blocks {
		if b.Trigger == fold.TriggerMilestone && b.Level == fold.L3 {
			chapters = append(chapters, b)
		}
		if b.Trigger == fold.TriggerCascade && b.Level == fold.L4 {
			cascades++
		}
	}
	if len(chapters) < 5 || cascades == 0 {
		t.Fatalf("want several milestone chapters and L4 cascades to test with, got %d and %d", len(chapters), cascades)
	}
	slices.SortFunc(chapters, func(a, b *fold.Block) int { return a.Last - b.Last })
	next := 1
	for _, c := range chapters {
		if c.First != next {
			t.Errorf("chapter %s (%q) starts at %d, want %d: the iteration after the previous milestone", c.ID, c.Title, c.First, next)
		}
		next = c.Last + 1
	}
}
