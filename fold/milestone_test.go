package fold_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
)

func blockOf(t *testing.T, st *fold.Store, run, id string) *fold.Block {
	t.Helper()
	b, err := st.Block(context.Background(), run, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A thought that declares a phase done, while the run's whole history
// still fits the window, closes the chapter without folding anything: the
// window keeps every iteration in full, and the state names the milestone.
func TestMilestoneFromThoughtWaitsWhileHistoryFits(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("ms", "Fix the parser, then add caching.")
	for i := 1; i <= 12; i++ {
		text := fmt.Sprintf("Work on the parser, step %d.", i)
		if i == 12 {
			text = "Phase 1 completed: parser fixed. Next comes caching."
		}
		l.quietIteration(text)
		if _, folds := feed(t, eng, l); len(folds) > 0 {
			t.Fatalf("iteration %d: folds %v with the whole history in the window", i, folds)
		}
	}
	if got := workingNumbers(t, eng, l.run); !reflect.DeepEqual(got, span(1, 12)) {
		t.Errorf("working after the milestone: %v", got)
	}
	title, at, err := eng.Fold.Milestone(context.Background(), l.run)
	if err != nil || title != "parser fixed" || at != 12 {
		t.Errorf("latest milestone: %q at %d (%v)", title, at, err)
	}
}

// Once the history has outgrown the window, a thought that declares a
// phase done folds everything since the previous milestone into one
// chapter named from the declaration, and the next chapter starts after
// it.
func TestMilestoneFromThought(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, 2000, nil)
	l := newDeltaLog("ms", "Summarise the invoices, then file the report.")
	step := func(i int, text string) []string {
		l.think(text, okCall("read_file", map[string]any{"path": fmt.Sprintf("data/batch%d.csv", i)}, invoices(i, 12)))
		_, folds := feed(t, eng, l)
		return folds
	}
	for i := 1; i <= 11; i++ {
		step(i, fmt.Sprintf("Read invoice batch %d.", i))
	}
	if len(visible(t, eng, l.run)) == 0 {
		t.Fatal("11 iterations of ~170 tokens did not outgrow a 2,000-token window")
	}
	folds := step(12, "Phase 1 completed: invoices summarised. Next comes the report.")
	if len(folds) == 0 || folds[len(folds)-1] != "milestone L3-1-12" {
		t.Fatalf("folds at the milestone: %v, want the chapter L3-1-12 last", folds)
	}
	c1 := blockOf(t, eng.Fold, l.run, "L3-1-12")
	if c1.Title != "invoices summarised" || c1.Trigger != fold.TriggerMilestone || !c1.Visible {
		t.Errorf("first chapter: title %q trigger %q visible %v", c1.Title, c1.Trigger, c1.Visible)
	}
	if len(workingNumbers(t, eng, l.run)) != 0 {
		t.Errorf("iterations still in full after the milestone: %v", workingNumbers(t, eng, l.run))
	}
	var last []string
	for i := 13; i <= 16; i++ {
		text := fmt.Sprintf("Draft report section %d.", i)
		if i == 16 {
			text = "Milestone: report drafted."
		}
		last = step(i, text)
	}
	if len(last) == 0 || last[len(last)-1] != "milestone L3-13-16" {
		t.Fatalf("folds at the second milestone: %v, want the chapter L3-13-16 last", last)
	}
	title, at, err := eng.Fold.Milestone(context.Background(), l.run)
	if err != nil || title != "report drafted" || at != 16 {
		t.Errorf("latest milestone: %q at %d (%v)", title, at, err)
	}
}

// A milestone the user declares folds from the chapter start to the current
// iteration; declaring again with nothing new is refused.
func TestMilestoneDeclared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("decl", "Migrate the database.")
	for i := 1; i <= 7; i++ {
		l.quietIteration(fmt.Sprintf("Migrate table %d.", i))
	}
	run, folds := feed(t, eng, l)
	if len(folds) != 0 {
		t.Fatalf("folds before the milestone: %v", folds)
	}
	step, err := eng.Milestone(ctx, run, "Schema migrated")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(step.Folds); n != 2 || step.Folds[0].Block != "L2-1-7" || step.Folds[n-1].Block != "L3-1-7" || step.Folds[n-1].Trigger != fold.TriggerMilestone {
		t.Fatalf("milestone step folds: %+v", step.Folds)
	}
	c := blockOf(t, eng.Fold, l.run, "L3-1-7")
	if c.Title != "Schema migrated" || !c.Visible {
		t.Errorf("chapter %q visible %v", c.Title, c.Visible)
	}
	if _, err := eng.Milestone(ctx, run, "Again"); !errors.Is(err, fold.ErrNothingToFold) {
		t.Fatalf("second milestone with no new iteration: %v, want ErrNothingToFold", err)
	}
	log, err := eng.Fold.Log(ctx, l.run, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) == 0 || log[0].Action != "milestone" || log[0].Detail != "Schema migrated" {
		t.Errorf("fold log: %+v", log)
	}

	// After two more iterations, the next chapter starts where this one ended.
	l.quietIteration("Verify the row counts.")
	l.quietIteration("Drop the old tables.")
	run, _ = feed(t, eng, l)
	step, err = eng.Milestone(ctx, run, "Cleanup")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(step.Folds); n != 2 || step.Folds[n-1].Level != fold.L3 || step.Folds[n-1].First != 8 || step.Folds[n-1].Last != 9 {
		t.Fatalf("second chapter: %+v", step.Folds)
	}
	if got := visible(t, eng, l.run); !reflect.DeepEqual(got, []string{"L3-1-7", "L3-8-9"}) {
		t.Errorf("visible: %v", got)
	}
	if err := eng.Fold.DeclareMilestone(ctx, run, ""); err == nil {
		t.Error("an empty milestone title should be refused")
	}
}
