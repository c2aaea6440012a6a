package fold_test

import (
	"context"
	"sync"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// TestConcurrentStepsAndMilestone runs two schedulers (as two `delta`
// processes would, each with its own database handle) over the same new
// iterations while a third declares a milestone. Afterwards every iteration
// is covered exactly once, no visible blocks overlap, and the declared
// milestone became a chapter.
func TestConcurrentStepsAndMilestone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := pgtest.Target(t, t.TempDir())
	open := func() *memory.Engine {
		eng, err := memory.Open(ctx, memory.Config{DBPath: path, Budget: 4000})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	a, b, c := open(), open(), open()
	events, err := synth.Events(synth.Config{Seed: 21, Iterations: 300, RunID: "race", MaxOutputBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		part := events[round*len(events)/3 : (round+1)*len(events)/3]
		if _, err := a.Journal.Append(ctx, "race", journal.FormatDelta, part); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		wg.Add(3)
		go func() { defer wg.Done(); _, errs[0] = a.Scheduler.Step(ctx, "race") }()
		go func() { defer wg.Done(); _, errs[1] = b.Scheduler.Step(ctx, "race") }()
		go func() {
			defer wg.Done()
			run, err := c.Journal.Run(ctx, "race")
			if err == nil {
				err = c.Fold.DeclareMilestone(ctx, run, "declared while folding")
			}
			errs[2] = err
		}()
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, worker %d: %v", round, i, err)
			}
		}
		if _, err := c.Scheduler.Step(ctx, "race"); err != nil {
			t.Fatal(err)
		}
		run, _ := a.Journal.Run(ctx, "race")
		if n, times, err := testrun.Miscovered(ctx, a, run); err != nil || n != 0 {
			t.Fatalf("round %d: iteration %d is covered %d times (%v)", round, n, times, err)
		}
		title, _, err := a.Fold.Milestone(ctx, "race")
		if err != nil {
			t.Fatal(err)
		}
		if title == "" {
			t.Fatalf("round %d: no milestone recorded", round)
		}
		blocks, _ := a.Fold.AllBlocks(ctx, "race")
		found := false
		for _, bl := range blocks {
			found = found || bl.Title == "declared while folding"
		}
		if !found {
			t.Fatalf("round %d: the declared milestone never became a chapter", round)
		}
	}
}
