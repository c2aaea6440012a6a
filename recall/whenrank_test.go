package recall_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/recall"
)

// TestAQuestionThatAsksWhenFavoursTheTurnsThatSayWhen: two turns tell of
// the pottery class. The earlier says "pottery" three times and ranks first
// by the words; the later says when the class began ("last Saturday").
// A question that asks when ranks the later first; without the time
// signals (recall.dates -1) it ranks second, and a question that asks
// something else ranks them as the words do. A recall with a limit, as an
// agent's, reads it too.
func TestAQuestionThatAsksWhenFavoursTheTurnsThatSayWhen(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	// Not fillers: those end on "today", a word that says when.
	lines := make([]string, 180)
	for i := range lines {
		lines[i] = fmt.Sprintf("Turn %d: chatting about the weather, number %d of many, nothing more to report.", i+1, i+1)
	}
	lines[40] = "Pottery calms me: the pottery class, the pottery teacher, the class itself."
	lines[90] = "I began a pottery class last Saturday."
	rank := func(dates int, words string, limit int) int {
		eng, run := datedDialogue(t, lines, start, 4000, func(c *recall.Config) { c.Dates, c.SecondHop, c.Nearby, c.Concepts = dates, -1, -1, -1 })
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{words}, DryRun: true, Fill: limit == 0, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			return 0
		}
		return firstMatched(hits)
	}
	const question = "When did Melanie join the pottery class?"
	if got := rank(-1, question, 0); got != 41 {
		t.Fatalf("set-up: without the time signals iteration %d ranks first, want 41 (pottery said three times)", got)
	}
	if got := rank(1, question, 0); got != 91 {
		t.Errorf("a question that asks when: iteration %d ranks first, want 91 (the turn that says when)", got)
	}
	if got := rank(1, "How long has Melanie been in the pottery class?", 5); got != 91 {
		t.Errorf("a recall with a limit that asks how long: iteration %d ranks first, want 91", got)
	}
	if got := rank(1, "Who teaches Melanie's pottery class?", 0); got != 41 {
		t.Errorf("a question that does not ask when: iteration %d ranks first, want 41 as by the words", got)
	}
}

// firstMatched is the first iteration the best hit matched.
func firstMatched(hits []memory.Retrieved) int { return hits[0].Matched[0] }
