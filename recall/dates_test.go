package recall_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// datedDialogue opens an engine over a conversation of lines, one a day
// from start, brought up to date under budget.
func datedDialogue(t *testing.T, lines []string, start time.Time, budget int, tune func(*recall.Config)) (*memory.Engine, journal.Run) {
	t.Helper()
	var events []journal.Event
	add := func(at time.Time, typ string, payload any) {
		raw, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, journal.Event{Seq: int64(len(events) + 1), Timestamp: at, Type: typ, Payload: raw})
	}
	add(start, journal.TypeRunStart, journal.RunStartPayload{RunID: "talk", Task: "A conversation"})
	for i, l := range lines {
		add(start.AddDate(0, 0, i), journal.TypeThought, journal.ThoughtPayload{Content: l})
	}
	return dialogueOf(t, events, budget, tune)
}

// TestATimeNamedFavoursTheTurnsSaidThen: two turns tell of a museum; the
// older says "museum" twice and ranks first by the words. The question
// asks about the visit two months before it is asked, which the newer one
// was: with the time cue it ranks first, without it second. A question
// that names no time ranks them as the words do.
func TestATimeNamedFavoursTheTurnsSaidThen(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	lines := fillers(211)
	lines[30] = "Went to the museum, the science museum, with my sister Ana." // 31 January
	lines[150] = "Art museum trip on Saturday, on my own this time."          // 31 May
	// The last line, the current step, is said on 30 July.
	rank := func(dates int, words string, limit int) []memory.Retrieved {
		eng, run := datedDialogue(t, lines, start, 4000, func(c *recall.Config) { c.Dates, c.SecondHop, c.Nearby, c.Concepts = dates, -1, -1, -1 })
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{words}, DryRun: true, Fill: limit == 0, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	first := func(hits []memory.Retrieved) int {
		if len(hits) == 0 {
			return 0
		}
		return hits[0].Matched[0]
	}
	const question = "I went to a museum two months ago. Who came with me?"
	if got := first(rank(-1, question, 0)); got != 31 {
		t.Fatalf("set-up: without time cues iteration %d ranks first, want 31 (the museum named twice)", got)
	}
	if got := first(rank(1, question, 0)); got != 151 {
		t.Errorf("with time cues iteration %d ranks first, want 151 (the visit two months before the question)", got)
	}
	// An agent's recall with a limit reads the time its words name too.
	if got := first(rank(1, "museum visit two months ago", 5)); got != 151 {
		t.Errorf("a recall with a limit: iteration %d ranks first, want 151", got)
	}
	if got := first(rank(1, "Who came with me to the museum?", 0)); got != 31 {
		t.Errorf("a question naming no time: iteration %d ranks first, want 31 as by the words", got)
	}
}
