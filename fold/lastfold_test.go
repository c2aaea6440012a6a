package fold_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
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

// TestSchedulerHoldsWhatTheRecallsWant: the scheduler counts what the
// recalls of the newest iteration's window want (MeasureRecalls) beyond
// Retrieved's share, and folds to make that room; wanting less than the
// share changes nothing.
func TestSchedulerHoldsWhatTheRecallsWant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var folds [2]int
	for i, want := range []func(int) int{func(int) int { return 0 }, func(room int) int { return room / 2 }} {
		eng, gen := testrun.Build(t, testrun.Options{Iterations: 300, Extra: 1, MaxOutputBytes: 2000, Budget: 8000, Seed: 5})
		room := eng.Folder.Config.Room()
		asked := 0
		eng.Scheduler.MeasureRecalls = func(context.Context, journal.Run) (int, error) {
			asked++
			return want(room), nil
		}
		ev, _ := gen.Next()
		if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, ev); err != nil {
			t.Fatal(err)
		}
		res, err := eng.Scheduler.Step(ctx, testrun.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if asked == 0 {
			t.Fatal("the scheduler never measured the recalls")
		}
		if res.Usage > 1 {
			t.Fatalf("recalls wanting %d tokens: usage %.2f after the step, over the room", want(room), res.Usage)
		}
		folds[i] = len(res.Folds)
	}
	if folds[1] == 0 || folds[1] <= folds[0] {
		t.Fatalf("recalls wanting half the room should make the step fold more: %d folds against %d", folds[1], folds[0])
	}
}
