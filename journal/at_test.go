package journal_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// TestReadsAtNumbersAgreeWithRanges reads scattered iterations in one
// statement (IterationsAt, SaidAt) and checks each against the range read
// of the same iteration: a stretch of numbers next to each other is
// grouped as a range is, and a gap starts a new stretch.
func TestReadsAtNumbersAgreeWithRanges(t *testing.T) {
	t.Parallel()
	s, run := saidRun(t)
	ctx := context.Background()
	if run.Iterations != 4 {
		t.Fatalf("the journal has %d iterations, want 4", run.Iterations)
	}
	all, err := s.Said(ctx, "run-1", 1, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	for _, numbers := range [][]int{{1}, {1, 2}, {1, 3, 4}, {2, 4}, {1, 2, 3, 4}} {
		its, err := s.IterationsAt(ctx, run, numbers, journal.ReadOptions{WithEvents: true})
		if err != nil {
			t.Fatalf("%v: %v", numbers, err)
		}
		if len(its) != len(numbers) {
			t.Fatalf("%v: read %d iterations", numbers, len(its))
		}
		for i, n := range numbers {
			want, err := s.IterationsOf(ctx, run, n, n, journal.ReadOptions{WithEvents: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(its[i], want[0]) {
				t.Errorf("%v: iteration %d reads\n%+v\nwant\n%+v", numbers, n, its[i], want[0])
			}
		}
		said, err := s.SaidAt(ctx, "run-1", numbers)
		if err != nil {
			t.Fatal(err)
		}
		want := maps.Clone(all)
		maps.DeleteFunc(want, func(n int, _ string) bool { return !slices.Contains(numbers, n) })
		if !maps.Equal(said, want) {
			t.Errorf("%v: said %v, want %v", numbers, said, want)
		}
	}
	for _, bad := range [][]int{{0}, {5}, {3, 2}, {2, 2}} {
		if _, err := s.IterationsAt(ctx, run, bad, journal.ReadOptions{}); !errors.Is(err, journal.ErrIterationNotFound) {
			t.Errorf("%v: err %v, want ErrIterationNotFound", bad, err)
		}
	}
}
