package longmemeval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

var fixtures = filepath.Join("..", "..", "testdata", "eval", "longmemeval")

func TestLoadDirectory(t *testing.T) {
	t.Parallel()
	qs, err := Load(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 || qs[0].ID != "mini_q1" || qs[2].ID != "mini_q3_abs" {
		t.Fatalf("loaded %d questions: %+v", len(qs), qs)
	}
	if qs[0].Abstention() || !qs[2].Abstention() {
		t.Error("only the _abs question is an abstention question")
	}
	q := qs[1]
	if q.Type != "multi-session" || q.Answer == "" || len(q.Sessions) != 8 || len(q.AnswerSessions) != 2 {
		t.Fatalf("q2: %+v", q)
	}
	// The file lists session 7 before 6; date order puts it back.
	for i := 1; i < len(q.Sessions); i++ {
		if !ParseDate(q.Sessions[i-1].Date).Before(ParseDate(q.Sessions[i].Date)) {
			t.Errorf("session %d (%s) is not after %d (%s)", i+1, q.Sessions[i].Date, i, q.Sessions[i-1].Date)
		}
	}
	if q.Sessions[6].ID != "answer_mini_q2_2" || !q.Sessions[6].Turns[2].HasAnswer {
		t.Errorf("session 7 is %s", q.Sessions[6].ID)
	}
}

func TestLoadListAndSingle(t *testing.T) {
	t.Parallel()
	one, err := os.ReadFile(filepath.Join(fixtures, "mini_q1.json"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile(filepath.Join(fixtures, "mini_q2.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	list := filepath.Join(dir, "list.json")
	if err := os.WriteFile(list, []byte("["+string(one)+","+string(two)+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := Load(list)
	if err != nil || len(qs) != 2 || qs[1].ID != "mini_q2" {
		t.Fatalf("list: %v, %d questions", err, len(qs))
	}
	qs, err = Load(filepath.Join(fixtures, "mini_q1.json"))
	if err != nil || len(qs) != 1 || qs[0].Source != filepath.Join(fixtures, "mini_q1.json") {
		t.Fatalf("single: %v, %+v", err, qs)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Load(dir); !errors.Is(err, ErrNoQuestions) {
		t.Errorf("empty directory: %v, want ErrNoQuestions", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"question_id": "x", "question": "q?", "haystack_sessions": [[]], "haystack_session_ids": [], "haystack_dates": []}`), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "must match") {
		t.Errorf("mismatched lists: %v", err)
	}
	os.WriteFile(bad, []byte(`{"sample_id": "conv-1"}`), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "no question_id") {
		t.Errorf("not LongMemEval: %v", err)
	}
	os.WriteFile(bad, []byte(`[1, 2]`), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "not a LongMemEval file") {
		t.Errorf("not JSON objects: %v", err)
	}
	// An empty list is no eval: a table of zeros would read as a result.
	os.WriteFile(bad, []byte(` [ ] `), 0o644)
	if _, err := Load(bad); !errors.Is(err, ErrNoQuestions) || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("an empty list: %v, want ErrNoQuestions naming the file", err)
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	qs, err := Load(filepath.Join(fixtures, "mini_q2.json"))
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	evs := q.Events()
	if len(evs) != 1+8*4 || evs[0].Type != journal.TypeRunStart {
		t.Fatalf("%d events, first %s", len(evs), evs[0].Type)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != int64(i+1) || !evs[i].Timestamp.After(evs[i-1].Timestamp) {
			t.Fatalf("event %d: seq %d at %v after %v", i, evs[i].Seq, evs[i].Timestamp, evs[i-1].Timestamp)
		}
	}
	th, err := evs[1+6*4+2].Thought()
	if err != nil {
		t.Fatal(err)
	}
	if want := "[S7:3] user (2023/05/07 (Sun) 16:00): Biscuit the tortoise"; !strings.HasPrefix(th.Content, want) {
		t.Errorf("turn line %q, want it to start %q", th.Content, want)
	}
	if strings.Contains(th.Content, "answer_") {
		t.Error("a turn line names its haystack session id, which tells where the answer is")
	}
}

func TestLoadDevData(t *testing.T) {
	t.Parallel()
	qs, err := Load(filepath.Join("..", "..", "..", "shared", "evaldata", "longmemeval", "s_cleaned"))
	if err != nil {
		t.Skipf("LongMemEval dev data not here (../shared/evaldata/longmemeval/s_cleaned): %v", err)
	}
	abs := 0
	for _, q := range qs {
		if q.Abstention() {
			abs++
			continue
		}
		evidence := 0
		for _, s := range q.Sessions {
			for _, t := range s.Turns {
				if t.HasAnswer {
					evidence++
				}
			}
		}
		if evidence == 0 || len(q.AnswerSessions) == 0 {
			t.Errorf("%s: %d evidence turns, answer sessions %v", q.ID, evidence, q.AnswerSessions)
		}
	}
	if len(qs) == 0 || abs == 0 {
		t.Errorf("%d questions, %d abstention", len(qs), abs)
	}
}
