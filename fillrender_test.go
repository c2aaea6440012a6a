package memory_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
)

// TestAFillKeepsTheHitsItKeptInTurn: a fill renders a batch of hits while
// the recall ranks the next; it must keep the same hits, in the same
// order, with the same texts, as a fill that renders each batch before
// going on. Questions of a few hits and of hundreds, under a budget that
// holds many batches.
func TestAFillKeepsTheHitsItKeptInTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 1500, Seed: 7, Budget: 32000})
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	fill := func(words string, inTurn bool) string {
		t.Helper()
		memory.FillInTurn(eng, inTurn)
		got, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{words}, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("%q: no hits", words)
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	many := 0
	for _, words := range []string{"config timeout", "pytest failed assertion", "CACHE_MAX_ENTRIES", "permission denied", "rename moved file"} {
		want := fill(words, true)
		got := fill(words, false)
		if got != want {
			t.Errorf("%q: the overlapped fill kept other hits than the fill in turn:\n got %.400s\nwant %.400s", words, got, want)
		}
		var hits []memory.Retrieved
		if err := json.Unmarshal([]byte(want), &hits); err != nil {
			t.Fatal(err)
		}
		if len(hits) > 100 {
			many++
		}
	}
	if many == 0 {
		t.Error("set-up: no question took more than 100 hits, too few for several batches")
	}
}
