package fold_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/scoring"
)

// TestImportanceFollowsTheRun checks that visible blocks' importance is
// recomputed as the run advances (recency decays), not frozen at fold time.
func TestImportanceFollowsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 600, MaxOutputBytes: 2000, Budget: 16000, Seed: 5})
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	blocks, err := eng.Fold.VisibleBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := eng.Config
	stale := 0
	for _, b := range blocks {
		want := scoring.Importance(c.Weights, scoring.Factors{
			Recency:     scoring.Recency(run.Iterations-b.Last, c.RecencyHalfLife),
			Access:      scoring.AccessFactor(b.AccessCount),
			Error:       math.Min(1, float64(len(b.Errors))/2),
			StateChange: math.Min(1, float64(len(b.StateChanges))/4),
		})
		if math.Abs(b.Importance-want) > 0.005 {
			t.Errorf("block %s (iterations %d-%d, made at %d): importance %.3f, want %.3f at iteration %d",
				b.ID, b.First, b.Last, b.CreatedIter, b.Importance, want, run.Iterations)
		}
		if b.CreatedIter < run.Iterations-100 {
			stale++
		}
	}
	if stale == 0 {
		t.Fatal("no block old enough to show recency decay; the test needs a longer run")
	}
}

// TestPinnedCapIsLogged checks that protected iterations past a block's
// pinned cap are logged when they fold with the rest.
func TestPinnedCapIsLogged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 400, MaxOutputBytes: 2000, Budget: 6000, Seed: 9, Settings: "pinned_cap: 1\n"})
	if eng.Config.PinnedCap != 1 {
		t.Fatalf("memory.yaml beside the database was not applied: pinned cap %d", eng.Config.PinnedCap)
	}
	log, err := eng.Fold.Log(ctx, testrun.RunID, 100000)
	if err != nil {
		t.Fatal(err)
	}
	unpins := 0
	for _, e := range log {
		if e.Action == "unpin" {
			unpins++
			if e.Block == "" || !strings.Contains(e.Detail, "keeps 1 protected iterations at most") {
				t.Errorf("unpin entry %+v", e)
			}
		}
	}
	if unpins == 0 {
		t.Fatal("no protected iteration was ever past the cap in 400 iterations; nothing logged")
	}
	blocks, _ := eng.Fold.AllBlocks(ctx, testrun.RunID)
	for _, b := range blocks {
		if len(b.Pinned) > eng.Config.PinnedCap {
			t.Errorf("block %s pins %d iterations, cap %d", b.ID, len(b.Pinned), eng.Config.PinnedCap)
		}
		if b.CreatedAt.IsZero() {
			t.Errorf("block %s has no created_at", b.ID)
		}
	}
}
