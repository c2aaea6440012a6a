// Package longmemeval reads the LongMemEval benchmark of chat-assistant
// memory (Wu et al., ICLR 2025) and turns each question's haystack of chat
// sessions into a journal: the sessions in date order, one iteration per
// turn, each line carrying the session, the turn, the role and the date.
package longmemeval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// Question is one LongMemEval item with its haystack.
type Question struct {
	ID     string
	Type   string
	Text   string
	Answer string
	// Date is when the question is asked, as written ("2023/05/30 (Tue) 23:42").
	Date string
	// Sessions are the haystack, in date order (ties keep the file's order).
	Sessions []Session
	// AnswerSessions are the ids of the sessions that hold the evidence.
	AnswerSessions []string
	// Source is the file the question came from.
	Source string
}

// Session is one dated chat session of a haystack.
type Session struct {
	ID    string
	Date  string
	Turns []Turn
}

// Turn is one message of a session.
type Turn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// HasAnswer marks an evidence turn.
	HasAnswer bool `json:"has_answer"`
}

// Abstention reports whether the question is an abstention question (its
// id ends in "_abs"): its answer is not in the haystack, so the official
// scripts leave it out of retrieval metrics.
func (q *Question) Abstention() bool { return strings.HasSuffix(q.ID, "_abs") }

type rawQuestion struct {
	ID             string          `json:"question_id"`
	Type           string          `json:"question_type"`
	Question       string          `json:"question"`
	Answer         json.RawMessage `json:"answer"`
	Date           string          `json:"question_date"`
	SessionIDs     []string        `json:"haystack_session_ids"`
	Dates          []string        `json:"haystack_dates"`
	Sessions       [][]Turn        `json:"haystack_sessions"`
	AnswerSessions []string        `json:"answer_session_ids"`
}

// ErrNoQuestions is returned by Load for a directory without .json files.
var ErrNoQuestions = errors.New("no LongMemEval questions")

// Load reads questions from path: a JSON file holding a list of questions
// (longmemeval_s_cleaned.json) or one question, or a directory of such
// files, read in name order.
func Load(path string) ([]Question, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return loadFile(path)
	}
	names, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w in %s: want .json files, one question each (or pass a file holding a list)", ErrNoQuestions, path)
	}
	sort.Strings(names)
	var out []Question
	for _, n := range names {
		qs, err := loadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, qs...)
	}
	return out, nil
}

func loadFile(path string) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raws []rawQuestion
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var one rawQuestion
		err = json.Unmarshal(trimmed, &one)
		raws = []rawQuestion{one}
	} else {
		err = json.Unmarshal(trimmed, &raws)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a LongMemEval file (want a question object, or a list of them, with question_id and haystack_sessions): %w", path, err)
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%w in %s: the list is empty", ErrNoQuestions, path)
	}
	out := make([]Question, 0, len(raws))
	for i, r := range raws {
		q, err := r.question(path)
		if err != nil {
			return nil, fmt.Errorf("%s: question %d (%s): %w", path, i+1, r.ID, err)
		}
		out = append(out, q)
	}
	return out, nil
}

func (r *rawQuestion) question(path string) (Question, error) {
	if r.ID == "" || r.Question == "" {
		return Question{}, errors.New("no question_id or question")
	}
	if len(r.SessionIDs) != len(r.Sessions) || len(r.Dates) != len(r.Sessions) {
		return Question{}, fmt.Errorf("%d haystack_sessions but %d haystack_session_ids and %d haystack_dates; the three lists must match",
			len(r.Sessions), len(r.SessionIDs), len(r.Dates))
	}
	q := Question{ID: r.ID, Type: r.Type, Text: r.Question, Answer: answerText(r.Answer), Date: r.Date,
		AnswerSessions: r.AnswerSessions, Source: path}
	for i, turns := range r.Sessions {
		q.Sessions = append(q.Sessions, Session{ID: r.SessionIDs[i], Date: r.Dates[i], Turns: turns})
	}
	// A journal runs forward in time; a few haystacks list sessions out of
	// date order.
	sort.SliceStable(q.Sessions, func(a, b int) bool {
		ta, tb := ParseDate(q.Sessions[a].Date), ParseDate(q.Sessions[b].Date)
		return !ta.IsZero() && !tb.IsZero() && ta.Before(tb)
	})
	return q, nil
}

func answerText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// ParseDate reads LongMemEval's date form, "2023/05/20 (Sat) 02:21"; the
// zero time when it does not parse.
func ParseDate(s string) time.Time {
	t, err := time.Parse("2006/01/02 (Mon) 15:04", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// TurnID names a turn in the journal: session and turn, numbered from 1 in
// date order ("S3:5"). Haystack session ids are not used: they spell out
// which sessions hold the answer.
func TurnID(session, turn int) string { return fmt.Sprintf("S%d:%d", session+1, turn+1) }

// TurnLine is a turn as a journal line: "[S3:5] user (2023/05/20 (Sat) 02:21): text".
func TurnLine(session, turn int, s Session) string {
	t := s.Turns[turn]
	return fmt.Sprintf("[%s] %s (%s): %s", TurnID(session, turn), t.Role, s.Date, t.Content)
}

// undated is the clock of a haystack whose first date does not parse.
var undated = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// Events turns the haystack into a Delta journal: RUN_START, then one
// THOUGHT per turn, in session order. The iteration of the k-th turn
// overall is k (from 1).
func (q *Question) Events() []journal.Event {
	var out []journal.Event
	var clock time.Time
	ev := func(at time.Time, typ string, payload any) {
		raw, _ := json.Marshal(payload)
		if at.IsZero() || at.Before(clock) {
			at = clock // undated, or out of order: keep time moving forward
		}
		if at.IsZero() {
			at = undated
		}
		clock = at.Add(time.Second)
		out = append(out, journal.Event{Seq: int64(len(out) + 1), Timestamp: at, Type: typ, Payload: raw})
	}
	first := time.Time{}
	if len(q.Sessions) > 0 {
		first = ParseDate(q.Sessions[0].Date)
	}
	ev(first, journal.TypeRunStart, journal.RunStartPayload{RunID: q.ID, Task: "Chat history between a user and an assistant"})
	for i, s := range q.Sessions {
		at := ParseDate(s.Date)
		for j := range s.Turns {
			ev(at, journal.TypeThought, journal.ThoughtPayload{Content: TurnLine(i, j, s)})
		}
	}
	return out
}
