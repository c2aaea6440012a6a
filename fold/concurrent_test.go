package fold_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
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

// TestConcurrentFoldMeetsAWiderBlock folds a chapter while another process
// folds a chapter that takes in part of its range and reaches past it. The
// first fold wraps its loose iterations into an L2 block, and the other
// process commits while it summarizes them: the blocks the first then finds
// in its range include one it would cut. It must not absorb that block
// (the iterations past its range would then be shown by nothing); it fails
// with ErrFoldRace, and every iteration stays covered once.
func TestConcurrentFoldMeetsAWiderBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, run := twoProcesses(t, "wider", 20)
	if _, err := b.Folder.Fold(ctx, run, manual(6, 10, fold.L2)); err != nil {
		t.Fatal(err)
	}
	// a's chapter 1-10 wraps 1-5 into an L2 block; while it summarizes it,
	// b folds 6-15, which absorbs L2-6-10 and wraps 11-15.
	var other error
	var once sync.Once
	a.Folder.Summarizer = summarizerFunc(func(ctx context.Context, req *fold.Request) (fold.Summary, error) {
		once.Do(func() {
			_, other = b.Folder.Fold(ctx, run, fold.FoldOptions{First: 6, Last: 15, Level: fold.L3, Trigger: fold.TriggerManual})
		})
		return fold.Extractive{}.Summarize(ctx, req)
	})
	_, err := a.Folder.Fold(ctx, run, fold.FoldOptions{First: 1, Last: 10, Level: fold.L3, Trigger: fold.TriggerManual})
	if other != nil {
		t.Fatalf("b's chapter 6-15: %v", other)
	}
	if !errors.Is(err, fold.ErrFoldRace) {
		t.Errorf("a's chapter 1-10 after b's 6-15: %v, want ErrFoldRace", err)
	}
	if n, times, err := testrun.Miscovered(ctx, a, run); err != nil || n != 0 {
		t.Fatalf("iteration %d is covered %d times (%v); visible: %v", n, times, err, visible(t, a, run.ID))
	}
	if got, want := visible(t, a, run.ID), []string{"L2-1-5", "L3-6-15"}; !slices.Equal(got, want) {
		t.Errorf("visible: %v, want %v", got, want)
	}
}

// summarizerFunc makes a function a fold.Summarizer.
type summarizerFunc func(ctx context.Context, req *fold.Request) (fold.Summary, error)

// Summarize calls f.
func (f summarizerFunc) Summarize(ctx context.Context, req *fold.Request) (fold.Summary, error) {
	return f(ctx, req)
}

// TestWindowReadsOneSnapshot: another process folds iterations 1-10 between
// the two reads of what a window shows (the visible blocks, then the
// iterations shown in full). Read apart, the blocks would predate the fold
// and the notes follow it, and iterations 1-10 would show nowhere; read in
// one snapshot, both predate it, and every iteration shows once. The next
// read sees the fold.
func TestWindowReadsOneSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, run := twoProcesses(t, "snapshot", 20)
	var folded error
	undo := fold.SetBetweenWindowReads(a.Fold, func() { _, folded = b.Folder.Fold(ctx, run, manual(1, 10, fold.L2)) })
	blocks, notes, err := a.Fold.Window(ctx, run.ID)
	undo()
	if err != nil || folded != nil {
		t.Fatalf("window: %v; fold between its reads: %v", err, folded)
	}
	if len(blocks) != 0 || len(notes) != 20 {
		t.Errorf("the window read %d blocks and %d iterations in full, want 0 and 20, as before the fold", len(blocks), len(notes))
	}
	if blocks, notes, err = a.Fold.Window(ctx, run.ID); err != nil || len(blocks) != 1 || len(notes) != 10 {
		t.Errorf("after the fold: %d blocks and %d iterations in full (%v), want 1 and 10", len(blocks), len(notes), err)
	}
}

// twoProcesses opens two engines on one new database, as two processes
// would, and feeds one of them a run of n quiet iterations, none folded.
func twoProcesses(t *testing.T, id string, n int) (a, b *memory.Engine, run journal.Run) {
	t.Helper()
	path := pgtest.Target(t, t.TempDir())
	open := func() *memory.Engine {
		eng, err := memory.Open(context.Background(), memory.Config{DBPath: path, Budget: 128000})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	a, b = open(), open()
	l := newDeltaLog(id, "Read the modules.")
	for i := 1; i <= n; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
	}
	run, folds := feed(t, a, l)
	if len(folds) != 0 {
		t.Fatalf("setup folded: %v", folds)
	}
	return a, b, run
}
