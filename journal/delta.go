package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// envelope is a Delta journal line before validation. Fields are raw so that
// a wrong JSON type gets a precise message instead of a generic decode error.
type envelope struct {
	Seq       json.RawMessage `json:"seq"`
	Timestamp json.RawMessage `json:"timestamp"`
	Type      json.RawMessage `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// ParseDeltaLine parses one line of a Delta journal.jsonl into an Event. It
// checks the envelope: a JSON object with an integer seq >= 1, a string type,
// an object payload, and an ISO 8601 timestamp if one is present. The payload
// bytes are kept as they are.
func ParseDeltaLine(line []byte) (Event, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Event{}, errors.New("not a JSON object (each line of a Delta journal is one event object)")
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return Event{}, fmt.Errorf("invalid JSON: %s", jsonErrorText(err))
	}
	var e Event
	if len(env.Seq) == 0 || string(env.Seq) == "null" {
		return Event{}, errors.New(`missing "seq"`)
	}
	seq, err := strconv.ParseInt(string(env.Seq), 10, 64)
	if err != nil || seq < 1 {
		return Event{}, fmt.Errorf(`"seq" must be an integer >= 1, got %s`, clip(string(env.Seq), 40))
	}
	e.Seq = seq
	if len(env.Type) == 0 || string(env.Type) == "null" {
		return Event{}, errors.New(`missing "type"`)
	}
	if err := json.Unmarshal(env.Type, &e.Type); err != nil || e.Type == "" {
		return Event{}, fmt.Errorf(`"type" must be a non-empty string, got %s`, clip(string(env.Type), 40))
	}
	if len(env.Payload) == 0 || env.Payload[0] != '{' {
		got := "nothing"
		if len(env.Payload) > 0 {
			got = clip(string(env.Payload), 40)
		}
		return Event{}, fmt.Errorf(`"payload" must be a JSON object, got %s`, got)
	}
	e.Payload = env.Payload
	if len(env.Timestamp) > 0 && string(env.Timestamp) != "null" {
		var ts string
		if err := json.Unmarshal(env.Timestamp, &ts); err != nil {
			return Event{}, fmt.Errorf(`"timestamp" must be an ISO 8601 string, got %s`, clip(string(env.Timestamp), 40))
		}
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return Event{}, fmt.Errorf(`"timestamp" %q is not ISO 8601 (want e.g. 2025-10-02T10:00:00.000Z)`, clip(ts, 40))
		}
		e.Timestamp = t.UTC()
	}
	return e, nil
}

// jsonErrorText shortens encoding/json's messages, which can quote a whole line.
func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	return err.Error()
}

// clip shortens s to n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
