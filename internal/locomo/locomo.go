// Package locomo reads the LoCoMo long-conversation memory benchmark
// (Maharana et al., 2024) and turns each conversation into a journal: one
// iteration per turn, each line carrying the speaker, the session's date
// and time, and the turn's dialogue id.
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// Conversation is one LoCoMo sample.
type Conversation struct {
	ID        string
	SpeakerA  string
	SpeakerB  string
	Sessions  []Session
	Questions []Question
}

// Session is one dated conversation session.
type Session struct {
	Number   int
	DateTime string
	Turns    []Turn
}

// Turn is one utterance.
type Turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	// Caption describes an image the speaker shared, if any.
	Caption string `json:"blip_caption"`
}

// Question is one QA item.
type Question struct {
	Question string
	Answer   string
	Category int
	// Evidence are the dialogue ids that answer it, parsed; BadEvidence
	// the raw entries that could not be parsed.
	Evidence    []string
	BadEvidence []string
}

// Category names, by LoCoMo's numbering.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question    string   `json:"question"`
		Answer      any      `json:"answer"`
		Adversarial any      `json:"adversarial_answer"`
		Evidence    []string `json:"evidence"`
		Category    int      `json:"category"`
	} `json:"qa"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Load reads a LoCoMo file (locomo10.json or a subset of it).
func Load(path string) ([]Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []rawSample
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a LoCoMo file (want a JSON list of samples with conversation and qa): %w", path, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s: no LoCoMo samples: the list is empty", path)
	}
	out := make([]Conversation, 0, len(raw))
	for i, r := range raw {
		c := Conversation{ID: r.SampleID}
		if c.ID == "" {
			c.ID = fmt.Sprintf("locomo-%d", i+1)
		}
		for k, v := range r.Conversation {
			switch {
			case k == "speaker_a":
				_ = json.Unmarshal(v, &c.SpeakerA)
			case k == "speaker_b":
				_ = json.Unmarshal(v, &c.SpeakerB)
			case sessionKey.MatchString(k):
				n, _ := strconv.Atoi(sessionKey.FindStringSubmatch(k)[1])
				s := Session{Number: n}
				if err := json.Unmarshal(v, &s.Turns); err != nil {
					return nil, fmt.Errorf("%s: sample %s: %s: %w", path, c.ID, k, err)
				}
				if dt, ok := r.Conversation[k+"_date_time"]; ok {
					_ = json.Unmarshal(dt, &s.DateTime)
				}
				c.Sessions = append(c.Sessions, s)
			}
		}
		sort.Slice(c.Sessions, func(a, b int) bool { return c.Sessions[a].Number < c.Sessions[b].Number })
		for _, q := range r.QA {
			qq := Question{Question: q.Question, Category: q.Category, Answer: answerText(q.Answer, q.Adversarial)}
			for _, e := range q.Evidence {
				ids, ok := ParseEvidence(e)
				if !ok {
					qq.BadEvidence = append(qq.BadEvidence, e)
				}
				qq.Evidence = append(qq.Evidence, ids...)
			}
			c.Questions = append(c.Questions, qq)
		}
		out = append(out, c)
	}
	return out, nil
}

func answerText(a, adversarial any) string {
	if a == nil {
		a = adversarial
	}
	switch v := a.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

var diaID = regexp.MustCompile(`D\s*:?\s*(\d+)\s*:\s*(\d+)`)

// ParseEvidence parses one evidence entry into dialogue ids ("D3:12"). The
// data holds malformed entries: several ids in one ("D8:6; D9:17"), an
// extra colon ("D:11:26"). It parses what it can; ok is false when the
// entry was not exactly one well-formed id.
func ParseEvidence(s string) (ids []string, ok bool) {
	for _, m := range diaID.FindAllStringSubmatch(s, -1) {
		ids = append(ids, "D"+m[1]+":"+m[2])
	}
	return ids, len(ids) == 1 && strings.TrimSpace(s) == ids[0]
}

// base is the clock of a conversation whose first session's date does
// not parse.
var base = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// sessionLayout is the form of LoCoMo's session dates, "1:56 pm on 8 May,
// 2023".
const sessionLayout = "3:04 pm on 2 January, 2006"

// parseSessionDate reads a session's date; the zero time when it does not
// parse.
func parseSessionDate(s string) time.Time {
	t, err := time.Parse(sessionLayout, strings.ToLower(strings.TrimSpace(s)))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Events turns a conversation into a Delta journal: RUN_START, then one
// THOUGHT per turn, "[D1:3] Caroline (1:56 pm on 8 May, 2023): text". A
// turn's event is dated at its session's date, a minute after the turn
// before; a session whose date does not parse, or comes before the turn
// before, goes on a minute after it, so that the journal stays in order.
func (c *Conversation) Events() []journal.Event {
	var out []journal.Event
	clock := base
	if len(c.Sessions) > 0 {
		if t := parseSessionDate(c.Sessions[0].DateTime); !t.IsZero() {
			clock = t
		}
	}
	ev := func(at time.Time, typ string, payload any) {
		raw, _ := json.Marshal(payload)
		out = append(out, journal.Event{Seq: int64(len(out) + 1), Timestamp: at, Type: typ, Payload: raw})
		clock = at.Add(time.Minute)
	}
	ev(clock, journal.TypeRunStart, journal.RunStartPayload{RunID: c.ID, Task: fmt.Sprintf("Conversation between %s and %s", c.SpeakerA, c.SpeakerB)})
	for _, s := range c.Sessions {
		if t := parseSessionDate(s.DateTime); t.After(clock) {
			clock = t
		}
		for _, t := range s.Turns {
			ev(clock, journal.TypeThought, journal.ThoughtPayload{Content: TurnLine(s, t)})
		}
	}
	return out
}

// TurnLine is a turn as a journal line.
func TurnLine(s Session, t Turn) string {
	text := t.Text
	if t.Caption != "" {
		text += " [shares an image: " + t.Caption + "]"
	}
	return fmt.Sprintf("[%s] %s (%s): %s", t.DiaID, t.Speaker, s.DateTime, text)
}

// Turns returns the conversation's dialogue ids in order; the iteration
// of Turns()[i] is i+1.
func (c *Conversation) Turns() []string {
	var out []string
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			out = append(out, t.DiaID)
		}
	}
	return out
}
