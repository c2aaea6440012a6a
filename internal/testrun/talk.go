package testrun

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// Conversation returns the journal events of run: its start, with task,
// and one thought per line, a minute apart from 1 March 2026, 09:00 UTC.
// Each thought is an iteration that only speaks, as a conversation's turn.
func Conversation(tb testing.TB, run, task string, lines []string) []journal.Event {
	tb.Helper()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var events []journal.Event
	add := func(typ string, payload any) {
		raw, err := json.Marshal(payload)
		if err != nil {
			tb.Fatal(err)
		}
		events = append(events, journal.Event{Seq: int64(len(events) + 1), Timestamp: at.Add(time.Duration(len(events)) * time.Minute), Type: typ, Payload: raw})
	}
	add(journal.TypeRunStart, journal.RunStartPayload{RunID: run, Task: task})
	for _, l := range lines {
		add(journal.TypeThought, journal.ThoughtPayload{Content: l})
	}
	return events
}
