package fold_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// TestEntityStatesAsOfIsTheStateThen replays a generated run and keeps
// what EntityStates said after iteration 75; once the run has gone on,
// EntityStatesAsOf(…, 75) must say the same, read from the iterations'
// calls and changes, and over a narrower range the same for the entities
// acted on in it.
func TestEntityStatesAsOfIsTheStateThen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 8000, nil)
	gen, err := synth.New(synth.Config{Seed: 7, Iterations: 120, RunID: "asof"})
	if err != nil {
		t.Fatal(err)
	}
	const at, limit = 75, 12
	var then []fold.EntityState
	for i := 1; ; i++ {
		evs, ok := gen.Next()
		if !ok {
			break
		}
		if _, err := eng.Journal.Append(ctx, "asof", journal.FormatDelta, evs); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Scheduler.Step(ctx, "asof"); err != nil {
			t.Fatal(err)
		}
		if i == at {
			if then, err = eng.Fold.EntityStates(ctx, "asof", limit); err != nil {
				t.Fatal(err)
			}
		}
	}
	now, err := eng.Fold.EntityStates(ctx, "asof", limit)
	if err != nil {
		t.Fatal(err)
	}
	changed := slices.ContainsFunc(then, func(e fold.EntityState) bool {
		return !strings.HasSuffix(e.Action, " ok") && !strings.HasSuffix(e.Action, " failed")
	})
	if len(then) < 5 || !changed || reflect.DeepEqual(now, then) {
		t.Fatalf("the run acted on too few entities, or none after iteration %d: then %v, now %v", at, then, now)
	}
	got, err := eng.Fold.EntityStatesAsOf(ctx, "asof", 1, at, limit)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, then) {
		t.Errorf("as of iteration %d:\n got %v\nwant %v", at, got, then)
	}
	const from = at - 9
	got, err = eng.Fold.EntityStatesAsOf(ctx, "asof", from, at, limit)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(then), func(e fold.EntityState) bool { return e.Iteration < from })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("iterations %d-%d:\n got %v\nwant %v", from, at, got, want)
	}
}
