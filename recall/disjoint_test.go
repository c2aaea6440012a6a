package recall_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
)

// TestExplicitRecallsAreDisjoint asks for a fact that both its iteration
// and the blocks folding it match: the iteration is the best hit, and no
// later hit shares an iteration with an earlier one, so the Retrieved
// partition never shows an iteration twice.
func TestExplicitRecallsAreDisjoint(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 400, Seed: 3}, []testrun.Plant{plantMetrics})
	eng := testrun.Feed(t, events, 8000, 4000)
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT", "metrics server port"}, Limit: 20, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].Matched != [2]int{40, 40} {
		t.Fatalf("want iteration 40 first among several hits: %+v", hits)
	}
	for i, a := range hits {
		for _, b := range hits[:i] {
			if a.Iterations[0] <= b.Iterations[1] && b.Iterations[0] <= a.Iterations[1] {
				t.Errorf("hit %v overlaps the earlier hit %v", a.Iterations, b.Iterations)
			}
		}
	}
}
