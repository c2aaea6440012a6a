package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ParseDeltaLine parses one line of a Delta journal.jsonl into an Event. It
// checks the envelope: a JSON object with an integer seq >= 1, a string type,
// an object payload, and an ISO 8601 timestamp if one is present. The payload
// bytes are kept as they are (copied: line may be reused by the caller).
//
// It reads the line in one pass with scanObject instead of json.Unmarshal,
// which validated and then decoded it: imports spent half their time there.
// Keys match as encoding/json matches struct fields, and a repeated key's
// last value wins, as it does there.
func ParseDeltaLine(line []byte) (Event, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Event{}, errors.New("not a JSON object (each line of a Delta journal is one event object)")
	}
	var seqRaw, tsRaw, typRaw, payload []byte
	err := scanObject(line, func(key, value []byte) error {
		switch {
		case keyIs(key, "seq"):
			seqRaw = value
		case keyIs(key, "timestamp"):
			tsRaw = value
		case keyIs(key, "type"):
			typRaw = value
		case keyIs(key, "payload"):
			payload = value
		}
		return nil
	})
	if err != nil {
		var se *scanError
		if errors.As(err, &se) {
			return Event{}, fmt.Errorf("invalid JSON: %s (at byte %d)", se.msg, se.Offset)
		}
		return Event{}, fmt.Errorf("invalid JSON: %w", err)
	}
	var e Event
	if len(seqRaw) == 0 || kindOf(seqRaw) == kindNull {
		return Event{}, errors.New(`missing "seq"`)
	}
	seq, err := strconv.ParseInt(string(seqRaw), 10, 64)
	if err != nil || seq < 1 {
		return Event{}, fmt.Errorf(`"seq" must be an integer >= 1, got %s`, clip(string(seqRaw), 40))
	}
	e.Seq = seq
	if len(typRaw) == 0 || kindOf(typRaw) == kindNull {
		return Event{}, errors.New(`missing "type"`)
	}
	if e.Type, err = jsonString(typRaw); err != nil || e.Type == "" {
		return Event{}, fmt.Errorf(`"type" must be a non-empty string, got %s`, clip(string(typRaw), 40))
	}
	if kindOf(payload) != kindObject {
		got := "nothing"
		if len(payload) > 0 {
			got = clip(string(payload), 40)
		}
		return Event{}, fmt.Errorf(`"payload" must be a JSON object, got %s`, got)
	}
	e.Payload = bytes.Clone(payload)
	if len(tsRaw) > 0 && kindOf(tsRaw) != kindNull {
		ts, err := jsonString(tsRaw)
		if err != nil {
			return Event{}, fmt.Errorf(`"timestamp" must be an ISO 8601 string, got %s`, clip(string(tsRaw), 40))
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
