package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/recall"
)

// TestAFillRanksTheWeakMatchesAroundATurn: the nearby signal scores a turn
// by the matches around it, and the matches around the turn that answers
// may rank far down. Four short turns name the meteor shower and rank
// first by the words; the answer, longer, ranks after them, and the four
// turns around it, longer still, after the answer. A recall of one hit
// with a limit ranks three documents (three per hit), none of them the
// answer or its neighbours, and takes a short turn. A fill of one hit
// ranks every match (recall's fillDepth), so the neighbours lend the
// answer their scores and it comes first.
func TestAFillRanksTheWeakMatchesAroundATurn(t *testing.T) {
	t.Parallel()
	lines := fillers(60)
	for _, i := range []int{4, 10, 16, 22} {
		lines[i] = "The meteor shower!"
	}
	const answer = 40 // iteration 41
	lines[answer] = "During the meteor shower we lay on the hill and felt tiny, calm and happy."
	for _, i := range []int{answer - 2, answer - 1, answer + 1, answer + 2} {
		lines[i] = "Out on the hill road for an hour, the meteor shower lit the whole sky above us."
	}
	lines = append(lines, "How did we feel at the meteor shower?")
	eng, run := datedDialogue(t, lines, time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), 4000,
		func(c *recall.Config) { c.Dates, c.SecondHop, c.Concepts = -1, -1, -1 })
	first := func(fill bool) int {
		t.Helper()
		hits, err := eng.Recall.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"How did we feel at the meteor shower?"}, Limit: 1, Fill: fill, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatal("no hit")
		}
		return hits[0].Matched[0]
	}
	if got := first(false); got == answer+1 {
		t.Fatalf("set-up: a recall of one hit with a limit took the answer (iteration %d); its neighbours should rank too far down to lend it their scores", got)
	}
	if got := first(true); got != answer+1 {
		t.Errorf("a fill of one hit took iteration %d, want the answer, %d, lent the scores of the weak matches around it", got, answer+1)
	}
}
