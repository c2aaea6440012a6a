package journal

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestMarshalDelta(t *testing.T) {
	t.Parallel()
	ts := time.Date(2025, 10, 2, 12, 30, 1, 7_900_000, time.FixedZone("X", 3600))
	e := Event{Seq: 12, Timestamp: ts, Type: "THOUGHT", Payload: json.RawMessage("{\n  \"content\": \"a <b> & c\"\n}")}
	got := string(MarshalDelta(e))
	want := `{"seq":12,"timestamp":"2025-10-02T11:30:01.007Z","type":"THOUGHT","payload":{"content":"a <b> & c"}}`
	if got != want {
		t.Errorf("MarshalLine:\n got %s\nwant %s", got, want)
	}
	var back Event
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatal(err)
	}
	if back.Seq != 12 || back.Type != "THOUGHT" || !back.Timestamp.Equal(ts.Truncate(time.Millisecond)) {
		t.Errorf("round trip: %+v", back)
	}

	odd := Event{Seq: 1, Type: "WEIRD\"TYPE", Payload: json.RawMessage("{not json")}
	got = string(MarshalDelta(odd))
	if !strings.HasSuffix(got, `"type":"WEIRD\"TYPE","payload":null}`) || !json.Valid([]byte(got)) {
		t.Errorf("invalid payload / quoted type: %s", got)
	}
	if got := string(MarshalDelta(Event{Seq: 2})); !strings.HasSuffix(got, `"payload":null}`) {
		t.Errorf("empty payload: %s", got)
	}
}
