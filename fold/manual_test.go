package fold_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

func manual(first, last, level int) fold.FoldOptions {
	return fold.FoldOptions{First: first, Last: last, Level: level, Trigger: fold.TriggerManual, Strict: true, Exact: true}
}

func TestManualFold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("manual", "Read the modules.")
	for i := 1; i <= 20; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
	}
	run, folds := feed(t, eng, l)
	if len(folds) != 0 {
		t.Fatalf("setup folded: %v", folds)
	}

	b, err := eng.Folder.Fold(ctx, run, manual(3, 6, fold.L2))
	if err != nil {
		t.Fatal(err)
	}
	if b.ID != "L2-3-6" || b.Level != fold.L2 || b.Kind != fold.KindSummary || b.Trigger != fold.TriggerManual || !b.Visible {
		t.Errorf("manual fold: %+v", b)
	}
	if got := workingNumbers(t, eng, run.ID); !reflect.DeepEqual(got, append([]int{1, 2}, span(7, 20)...)) {
		t.Errorf("working after folding 3-6: %v", got)
	}

	var cut *fold.RangeCutError
	_, err = eng.Folder.Fold(ctx, run, manual(5, 10, fold.L2))
	if !errors.As(err, &cut) || cut.Block != "L2-3-6" || cut.First != 3 || cut.Last != 6 || !errors.Is(err, fold.ErrBadRange) {
		t.Errorf("range cutting L2-3-6: %v", err)
	} else if !strings.Contains(err.Error(), "L2-3-6") {
		t.Errorf("the error should name the block: %v", err)
	}

	var rng *journal.RangeError
	_, err = eng.Folder.Fold(ctx, run, manual(15, 25, fold.L2))
	if !errors.As(err, &rng) || !strings.Contains(err.Error(), "has iterations 1-20") || !errors.Is(err, journal.ErrIterationNotFound) {
		t.Errorf("range past the run: %v", err)
	}
	if _, err = eng.Folder.Fold(ctx, run, manual(0, 2, fold.L2)); !errors.As(err, &rng) {
		t.Errorf("range from 0: %v", err)
	}
	if _, err = eng.Folder.Fold(ctx, run, manual(8, 9, 5)); !errors.Is(err, fold.ErrBadRange) || !strings.Contains(err.Error(), "level 5") {
		t.Errorf("level 5: %v", err)
	}
	if _, err = eng.Folder.Fold(ctx, run, manual(3, 6, fold.L2)); !errors.Is(err, fold.ErrBadRange) || !strings.Contains(err.Error(), "already folded") {
		t.Errorf("folding 3-6 again at L2: %v", err)
	}
	if _, err = eng.Folder.Fold(ctx, run, manual(3, 6, fold.L1)); err == nil {
		t.Error("folding 3-6 finer than its L2 block should fail")
	}

	// A coarser fold over a whole block absorbs it.
	ch, err := eng.Folder.Fold(ctx, run, manual(1, 10, fold.L3))
	if err != nil {
		t.Fatal(err)
	}
	if got := visible(t, eng, run.ID); !reflect.DeepEqual(got, []string{"L3-1-10"}) {
		t.Errorf("visible after the chapter: %v", got)
	}
	inner := blockOf(t, eng.Fold, run.ID, "L2-3-6")
	if inner.Visible || inner.Parent != ch.ID {
		t.Errorf("L2-3-6 after the chapter: visible %v parent %q", inner.Visible, inner.Parent)
	}
}

func TestUnfold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("unfold", "Read the modules.")
	for i := 1; i <= 12; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
	}
	run, _ := feed(t, eng, l)
	for _, o := range []fold.FoldOptions{manual(1, 4, fold.L2), manual(5, 8, fold.L2), manual(1, 8, fold.L3)} {
		if _, err := eng.Folder.Fold(ctx, run, o); err != nil {
			t.Fatal(err)
		}
	}

	// An absorbed block cannot be unfolded before the block that holds it.
	_, err := eng.Folder.Unfold(ctx, run, "L2-1-4")
	if !errors.Is(err, fold.ErrBadRange) || !strings.Contains(err.Error(), "absorbed by block L3-1-8") {
		t.Errorf("unfold an absorbed block: %v", err)
	}
	if _, err := eng.Folder.Unfold(ctx, run, "L9-1-2"); !errors.Is(err, fold.ErrBlockNotFound) {
		t.Errorf("unfold an unknown block: %v", err)
	}

	// Unfolding the chapter shows its children again.
	u, err := eng.Folder.Unfold(ctx, run, "L3-1-8")
	if err != nil {
		t.Fatal(err)
	}
	if u.Visible || !u.Unfolded {
		t.Errorf("unfolded block: visible %v unfolded %v", u.Visible, u.Unfolded)
	}
	if got := visible(t, eng, run.ID); !reflect.DeepEqual(got, []string{"L2-1-4", "L2-5-8"}) {
		t.Errorf("visible after unfolding the chapter: %v", got)
	}
	stored := blockOf(t, eng.Fold, run.ID, "L3-1-8")
	if stored.Visible || !stored.Unfolded {
		t.Errorf("stored chapter: visible %v unfolded %v", stored.Visible, stored.Unfolded)
	}
	if _, err := eng.Folder.Unfold(ctx, run, "L3-1-8"); !errors.Is(err, fold.ErrBadRange) || !strings.Contains(err.Error(), "unfolded already") {
		t.Errorf("unfold twice: %v", err)
	}

	// Unfolding a summary brings its iterations back in full.
	if _, err := eng.Folder.Unfold(ctx, run, "L2-5-8"); err != nil {
		t.Fatal(err)
	}
	notes, err := eng.Fold.WorkingNotes(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	for _, n := range notes {
		nums = append(nums, n.Number)
		if !strings.HasPrefix(n.L0, fmt.Sprintf("#### Iteration %d (", n.Number)) || n.L0Tokens == 0 || len(n.L0Msgs) == 0 {
			t.Errorf("iteration %d is back without its L0: tokens %d, %d messages, %.60q", n.Number, n.L0Tokens, len(n.L0Msgs), n.L0)
		}
	}
	if !reflect.DeepEqual(nums, span(5, 12)) {
		t.Errorf("working after unfolding L2-5-8: %v", nums)
	}

	log, err := eng.Fold.Log(ctx, run.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []fold.LogEntry{
		{Iteration: 12, Action: "unfold", Block: "L3-1-8", Detail: "blocks L2-1-4, L2-5-8 show again"},
		{Iteration: 12, Action: "unfold", Block: "L2-5-8", Detail: "iterations 5-8 show again"},
	}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("fold log:\n got %+v\nwant %+v", log, want)
	}

	// Nothing is deleted, and folding the range again makes a new block.
	again, err := eng.Folder.Fold(ctx, run, manual(5, 8, fold.L2))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != "L2-5-8.2" {
		t.Errorf("refolded block id %q", again.ID)
	}
	all, err := eng.Fold.AllBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range all {
		ids = append(ids, b.ID)
	}
	if want := []string{"L3-1-8", "L2-1-4", "L2-5-8", "L2-5-8.2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("all blocks: %v, want %v", ids, want)
	}
}
