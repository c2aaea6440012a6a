package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
)

func TestErrorRecallBringsBackTheDelete(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 372, Seed: 7}, []testrun.Plant{plantRemove, plantReadGone})
	eng := testrun.Feed(t, testrun.UpTo(events, 371), 8000, 4000)
	got, _ := retrievedText(t, eng)
	if strings.Contains(got, "git rm -q data/cache_3d5a4.json") {
		t.Fatalf("iteration 271 recalled before anything failed:\n%s", got)
	}
	testrun.FeedMore(t, eng, events[len(testrun.UpTo(events, 371)):], 4000)
	got, cx := retrievedText(t, eng)
	if !strings.Contains(got, "Iteration 271") || !strings.Contains(got, "git rm -q data/cache_3d5a4.json") {
		t.Fatalf("the failed read at 372 did not bring back the git rm at 271; Retrieved:\n%s\nomitted: %v", got, cx.Omitted)
	}
	if cx.Tokens > cx.Budget {
		t.Fatalf("window %d tokens over the budget %d", cx.Tokens, cx.Budget)
	}
	run, _ := eng.Journal.Run(context.Background(), testrun.RunID)
	active, err := eng.Recall.Active(context.Background(), run.ID, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range active {
		if r.First == 271 && r.Reason == recall.ReasonError && r.Query == "data/cache_3d5a4.json" && r.Since == 372 && r.Expires == 380 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no error recall of 271 since 372 until 380 among %+v", active)
	}
}

func TestImplicitRecallOfAFixedFile(t *testing.T) {
	t.Parallel()
	events := testrun.Planted(t, testrun.Options{Iterations: 250, Seed: 11}, []testrun.Plant{plantTimeout, plantFix, plantRevisit})
	eng := testrun.Feed(t, events, 8000, 4000)
	got, _ := retrievedText(t, eng)
	if !strings.Contains(got, "LEASE_TTL_S = 63") {
		t.Fatalf("naming src/storage/worker_bfe.py did not bring back the fix at 101; Retrieved:\n%s", got)
	}
	if !strings.Contains(got, "you named src/storage/worker_bfe.py") {
		t.Fatalf("the recall does not say why:\n%s", got)
	}
}

func TestImplicitRecallIgnoresPlainWords(t *testing.T) {
	t.Parallel()
	vague := plantRevisit
	vague.Thought = "Before tuning throughput I will revisit the storage worker and its lease settings."
	events := testrun.Planted(t, testrun.Options{Iterations: 250, Seed: 11}, []testrun.Plant{plantTimeout, plantFix, vague})
	eng := testrun.Feed(t, events, 8000, 4000)
	got, _ := retrievedText(t, eng)
	if strings.Contains(got, "LEASE_TTL_S = 63") {
		t.Fatalf("plain words (storage, worker, lease) recalled the fix:\n%s", got)
	}
}

func TestStrengthGate(t *testing.T) {
	t.Parallel()
	th := recall.DefaultConfig().ImplicitThreshold
	cases := []struct {
		name            string
		spec, imp       float64
		changed, failed bool
		pass            bool
	}{
		{"full path that was fixed, unimportant block", 1, 0.1, true, false, true},
		{"full path that failed", 1, 0.1, false, true, true},
		{"full path merely mentioned, unimportant", 1, 0.2, false, false, false},
		{"full path mentioned in an important block", 1, 0.6, false, false, true},
		{"file name that was written", 0.8, 0.1, true, false, true},
		{"identifier merely mentioned", 0.7, 0.3, false, false, false},
		{"quoted name, even important", 0.5, 0.9, true, true, false},
		{"plain word", 0, 1, true, true, false},
	}
	for _, c := range cases {
		if got := recall.Strength(c.spec, c.imp, c.changed, c.failed) >= th; got != c.pass {
			t.Errorf("%s: strength %.3f vs threshold %.2f: pass=%v, want %v", c.name, recall.Strength(c.spec, c.imp, c.changed, c.failed), th, got, c.pass)
		}
	}
}
