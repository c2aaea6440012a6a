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

// A thought that declares a phase done folds everything since the previous
// milestone into one chapter named from the declaration.
func TestMilestoneFromThought(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("ms", "Fix the parser, then add caching.")
	var events []string
	for i := 1; i <= 12; i++ {
		text := fmt.Sprintf("Work on the parser, step %d.", i)
		if i == 12 {
			text = "Phase 1 completed: parser fixed. Next comes caching."
		}
		l.quietIteration(text)
		_, folds := feed(t, eng, l)
		events = append(events, folds...)
	}
	// The chapter indexes L2 summaries of the loose iterations, made for
	// it and reported with it.
	if want := []string{"milestone L2-1-10", "milestone L2-11-12", "milestone L3-1-12"}; !reflect.DeepEqual(events, want) {
		t.Fatalf("folds: %v, want %v", events, want)
	}
	if got := visible(t, eng, l.run); !reflect.DeepEqual(got, []string{"L3-1-12"}) {
		t.Fatalf("visible blocks after the first milestone: %v", got)
	}
	c1 := blockOf(t, eng.Fold, l.run, "L3-1-12")
	if c1.Title != "parser fixed" || c1.Trigger != fold.TriggerMilestone || c1.Level != fold.L3 || c1.First != 1 || c1.Last != 12 {
		t.Errorf("first chapter: title %q trigger %q L%d %d-%d", c1.Title, c1.Trigger, c1.Level, c1.First, c1.Last)
	}
	if len(workingNumbers(t, eng, l.run)) != 0 {
		t.Errorf("iterations still in full after the milestone: %v", workingNumbers(t, eng, l.run))
	}

	events = nil
	for i := 13; i <= 20; i++ {
		text := fmt.Sprintf("Add a cache for lookups, part %d.", i)
		if i == 20 {
			text = "Milestone: caching layer done."
		}
		l.quietIteration(text)
		_, folds := feed(t, eng, l)
		events = append(events, folds...)
	}
	if want := []string{"milestone L2-13-20", "milestone L3-13-20"}; !reflect.DeepEqual(events, want) {
		t.Fatalf("folds: %v, want %v", events, want)
	}
	if got := visible(t, eng, l.run); !reflect.DeepEqual(got, []string{"L3-1-12", "L3-13-20"}) {
		t.Fatalf("visible blocks after the second milestone: %v", got)
	}
	c2 := blockOf(t, eng.Fold, l.run, "L3-13-20")
	if c2.Title != "caching layer" || c2.Trigger != fold.TriggerMilestone || c2.First != 13 || c2.Last != 20 {
		t.Errorf("second chapter: title %q trigger %q %d-%d", c2.Title, c2.Trigger, c2.First, c2.Last)
	}
	title, at, err := eng.Fold.Milestone(context.Background(), l.run)
	if err != nil || title != "caching layer" || at != 20 {
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
