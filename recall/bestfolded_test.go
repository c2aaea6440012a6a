package recall

import (
	"context"
	"testing"
)

// foldedAt stands in for the fold store where a test needs only which
// iterations are folded: Covering answers from the map, the rest is unused.
type foldedAt map[int]bool

func (f foldedAt) BlocksAfter(context.Context, string, int64, int) ([]BlockDoc, int64, error) {
	return nil, 0, nil
}

func (f foldedAt) Covering(_ context.Context, _ string, n int) (string, float64, bool, error) {
	if f[n] {
		return "b", 0.5, true, nil
	}
	return "", 0, false, nil
}

func (f foldedAt) InFull(context.Context, string, int, int) (int, error) { return 0, nil }
func (f foldedAt) Noted(context.Context, string, []int) (map[int]Noted, error) {
	return nil, nil
}
func (f foldedAt) WorkingFrom(context.Context, string) (int, error)   { return 0, nil }
func (f foldedAt) Touch(context.Context, string, int, int, int) error { return nil }
func (f foldedAt) Changes(context.Context, string, string, int) (int, int, error) {
	return 0, 0, nil
}

// TestBestFoldedKeepsEachIterationsCoverage checks that the coverage the
// triggers keep across entities is each iteration's own: iteration 5,
// which both entities name and which changed y.go, shows in full, so the
// best folded iteration for y.go is its mention at 4.
func TestBestFoldedKeepsEachIterationsCoverage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := newTestRecaller(t)
	var rows []mentionRow
	add := func(n int, acts, changed []string) {
		for _, e := range acts {
			rows = append(rows, mentionRow{entity: e, names: len(acts), iteration: n})
		}
		for _, e := range changed {
			rows = append(rows, mentionRow{entity: e, kind: mentionChanged, names: len(changed), iteration: n})
		}
	}
	add(3, []string{"x.go"}, []string{"x.go"})
	add(4, []string{"y.go"}, nil)
	add(5, []string{"x.go", "y.go"}, []string{"y.go"})
	if err := r.store.saveMentions(ctx, "r", 0, 5, rows); err != nil {
		t.Fatal(err)
	}
	r.folds = foldedAt{3: true, 4: true}
	covered := newCoverages(r.folds, "r")
	x, err := r.bestFolded(ctx, "r", 9, named{value: "x.go", term: "x.go", spec: 0.8}, 8, covered)
	if err != nil {
		t.Fatal(err)
	}
	y, err := r.bestFolded(ctx, "r", 9, named{value: "y.go", term: "y.go", spec: 0.8}, 8, covered)
	if err != nil {
		t.Fatal(err)
	}
	if x.First != 3 || y.First != 4 {
		t.Fatalf("best folded iterations: x.go %d, y.go %d; want 3 and 4 (5 shows in full)", x.First, y.First)
	}
}
