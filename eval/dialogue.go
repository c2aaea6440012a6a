package eval

import (
	"strings"
	"time"

	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/longmemeval"
	"github.com/delta-memory/delta-memory/journal"
)

// Dialogue is a conversation prepared as a run: its journal, and the turn
// each of its iterations holds.
type Dialogue struct {
	// ID is the run's id.
	ID     string
	Events []journal.Event
	// Turns[i] is the turn of iteration i+1.
	Turns []Turn
	// AskedAt is when questions are asked: after the last turn.
	AskedAt time.Time
}

// Turn is one utterance of a dialogue.
type Turn struct {
	// ID is the benchmark's name for the turn ("D1:3") or ours ("S3:5").
	ID string
	// Session is the session the turn belongs to.
	Session string
	// Line is the turn as journaled, with its id, speaker and date.
	Line string
}

// LoCoMoDialogue prepares a LoCoMo conversation: one iteration per turn.
func LoCoMoDialogue(c *locomo.Conversation) Dialogue {
	d := Dialogue{ID: c.ID, Events: c.Events()}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			d.Turns = append(d.Turns, Turn{ID: t.DiaID, Session: strings.TrimSpace(s.DateTime), Line: locomo.TurnLine(s, t)})
		}
	}
	d.AskedAt = d.Events[len(d.Events)-1].Timestamp.Add(time.Hour)
	return d
}

// LongMemEvalDialogue prepares a LongMemEval question's haystack: one
// iteration per turn, sessions in date order. A turn's Session is the
// haystack session id.
func LongMemEvalDialogue(q *longmemeval.Question) Dialogue {
	d := Dialogue{ID: q.ID, Events: q.Events()}
	for i, s := range q.Sessions {
		for j := range s.Turns {
			d.Turns = append(d.Turns, Turn{ID: longmemeval.TurnID(i, j), Session: s.ID, Line: longmemeval.TurnLine(i, j, s)})
		}
	}
	d.AskedAt = d.Events[len(d.Events)-1].Timestamp.Add(time.Minute)
	if at := longmemeval.ParseDate(q.Date); at.After(d.AskedAt) {
		d.AskedAt = at
	}
	return d
}

// turnIndex maps turn ids to their index in d.Turns.
func (d *Dialogue) turnIndex() map[string]int {
	m := make(map[string]int, len(d.Turns))
	for i, t := range d.Turns {
		m[t.ID] = i
	}
	return m
}

// normalize folds runs of white space into one space, so that a turn's
// text is found in a rendering that wraps or indents it.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// present counts the turns (by index) whose whole line is in text.
func (d *Dialogue) present(text string, turns []int) int {
	text = normalize(text)
	n := 0
	for _, i := range turns {
		if strings.Contains(text, normalize(d.Turns[i].Line)) {
			n++
		}
	}
	return n
}
