package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

func TestExplicitRecallFindsAnOldFact(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 400, Seed: 3}, []testrun.Plant{plantMetrics})
	eng := testrun.Feed(t, events, 8000, 4000)
	ctx := context.Background()
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	if got, _ := retrievedText(t, eng); strings.Contains(got, "METRICS_PORT=9464") {
		t.Fatal("the fact is in Retrieved before anyone asked")
	}
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"metrics server port"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Matched != [2]int{40, 40} || hits[0].Reason != recall.ReasonExplicit {
		t.Fatalf("iteration 40 is not the best hit: %+v", hits)
	}
	// The best hit comes back with a step around it (41 holds a long
	// output, too long to be context).
	if hits[0].Iterations != [2]int{39, 40} {
		t.Fatalf("the best hit's range is %v, want 39-40 (the step before as context)", hits[0].Iterations)
	}
	if !strings.Contains(hits[0].Content, "METRICS_PORT=9464") {
		t.Fatalf("the hit's content lacks the fact:\n%s", hits[0].Content)
	}
	got, cx := retrievedText(t, eng)
	if !strings.Contains(got, "METRICS_PORT=9464") {
		t.Fatalf("context does not show the recalled fact; Retrieved:\n%s", got)
	}
	if !strings.Contains(cx.Markdown(), "METRICS_PORT=9464") {
		t.Fatal("the Markdown form lacks the recalled fact")
	}
	// An exact identifier finds it too.
	hits, err = eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT"}, DryRun: true})
	if err != nil || len(hits) == 0 || hits[0].Matched[0] != 40 {
		t.Fatalf("METRICS_PORT: %+v, %v", hits, err)
	}
}

// TestExplicitRecallMarksWhatShowsInFull ranks a fact that Working shows
// in full: the hit is returned, marked visible, and the window built after
// the recall shows the fact once, not twice.
func TestExplicitRecallMarksWhatShowsInFull(t *testing.T) {
	t.Parallel()
	plant := plantMetrics
	plant.At = 399
	events := testrun.Planted(t, testrun.Options{Iterations: 400, Seed: 3}, []testrun.Plant{plant})
	eng := testrun.Feed(t, events, 8000, 4000)
	ctx := context.Background()
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	for _, limit := range []int{0, 5} {
		hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT"}, Limit: limit, DryRun: limit > 0})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Matched != [2]int{399, 399} || !hits[0].Visible {
			t.Fatalf("limit %d: iteration 399, shown in full, is not the best hit marked visible: %+v", limit, hits)
		}
		for _, h := range hits[1:] {
			if h.Visible && h.Matched[0] < 390 {
				t.Errorf("limit %d: hit %v is marked visible, but is folded", limit, h.Matched)
			}
		}
	}
	_, cx := retrievedText(t, eng)
	if n := strings.Count(cx.Markdown(), "METRICS_PORT=9464"); n != 1 {
		t.Errorf("the fact shows %d times in the window after the recall, want once", n)
	}
}

func TestRecallNeverCrossesRuns(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics})
	eng := testrun.Feed(t, events, 8000, 4000)
	ctx := context.Background()
	// A second run in the same database, without the fact.
	other := testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 5}, nil)
	if _, err := eng.Journal.Append(ctx, "other", journal.FormatDelta, other); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	run, err := eng.Journal.Run(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"METRICS_PORT 9464"}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Content, "METRICS_PORT=9464") {
			t.Fatalf("run other recalled run %s's fact: %+v", testrun.RunID, h)
		}
	}
	mine, _ := eng.Journal.Run(ctx, testrun.RunID)
	hits, err = eng.Retrieve(ctx, mine, recall.Query{Keywords: []string{"METRICS_PORT 9464"}, DryRun: true})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Content, "METRICS_PORT=9464") {
		t.Fatalf("the run that holds the fact does not find it: %+v %v", hits, err)
	}
}

func TestEmptyQuery(t *testing.T) {
	t.Parallel()
	eng := testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 20, Seed: 3}, nil), 8000, 4000)
	run, _ := eng.Journal.Run(context.Background(), testrun.RunID)
	if _, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"  "}}); err == nil {
		t.Fatal("an empty query was accepted")
	}
}
