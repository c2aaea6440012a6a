package recall_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/recall"
)

// Forget drops a run's documents from the shared index: while the database
// still says the index holds the run, a search finds nothing of it. (Copy
// clears the positions too, and the next catch-up indexes the run afresh.)
func TestForgetDropsARunsDocuments(t *testing.T) {
	pgtest.SkipOnPostgres(t, "PostgreSQL's index per run is removed whole")
	ctx := context.Background()
	eng, run := dialogue(t, []string{"the parser fails on tabs", "fixed the parser's tab handling", "the docs mention tabs"}, 4000, nil)
	q := recall.Query{Keywords: []string{"tabs"}, Limit: 5, DryRun: true}
	before, err := eng.Recall.Retrieve(ctx, run, q)
	if err != nil || len(before) == 0 {
		t.Fatalf("before: %d hits, %v", len(before), err)
	}
	if err := eng.Recall.Forget(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	after, err := eng.Recall.Retrieve(ctx, run, q)
	if err != nil || len(after) != 0 {
		t.Fatalf("after Forget: %d hits, %v", len(after), err)
	}
}
