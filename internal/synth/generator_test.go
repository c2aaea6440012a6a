package synth

import (
	"bytes"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// jsonl renders cfg or fails the test.
func jsonl(t testing.TB, cfg Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, cfg); err != nil {
		t.Fatalf("WriteJSONL(%+v): %v", cfg, err)
	}
	return buf.Bytes()
}

// allEvents returns Events(cfg) or fails the test.
func allEvents(t testing.TB, cfg Config) []journal.Event {
	t.Helper()
	evs, err := Events(cfg)
	if err != nil {
		t.Fatalf("Events(%+v): %v", cfg, err)
	}
	return evs
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 42, Iterations: 150}
	a, b := jsonl(t, cfg), jsonl(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("same config produced different output")
	}
	other := cfg
	other.Seed = 43
	if bytes.Equal(a, jsonl(t, other)) {
		t.Fatal("different seeds produced identical output")
	}
	renamed := cfg
	renamed.RunID = "another-run"
	if c := jsonl(t, renamed); bytes.Equal(a, c) || !bytes.Contains(c, []byte(`"run_id":"another-run"`)) {
		t.Fatal("RunID is not reflected in the output")
	}
}

func TestWriteJSONLMatchesEvents(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 5, Iterations: 80}
	var want bytes.Buffer
	for _, e := range allEvents(t, cfg) {
		want.Write(journal.MarshalDelta(e))
		want.WriteByte('\n')
	}
	if got := jsonl(t, cfg); !bytes.Equal(got, want.Bytes()) {
		t.Fatal("WriteJSONL differs from MarshalLine over Events")
	}
}

func TestNextOneIterationPerCall(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 75} {
		g, err := New(Config{Seed: 3, Iterations: n})
		if err != nil {
			t.Fatal(err)
		}
		for call := 1; call <= n; call++ {
			evs, ok := g.Next()
			if !ok {
				t.Fatalf("n=%d: Next returned false on call %d", n, call)
			}
			thoughts := 0
			for _, e := range evs {
				if e.Type == journal.TypeThought {
					thoughts++
				}
			}
			if thoughts != 1 {
				t.Fatalf("n=%d call %d: %d THOUGHT events, want 1", n, call, thoughts)
			}
			if call == 1 && (evs[0].Type != journal.TypeRunStart || evs[1].Type != journal.TypeUserMessage) {
				t.Fatalf("n=%d: first call starts with %s, %s; want RUN_START, USER_MESSAGE", n, evs[0].Type, evs[1].Type)
			}
			last := evs[len(evs)-1].Type
			if (call == n) != (last == journal.TypeRunEnd) {
				t.Fatalf("n=%d call %d: last event %s", n, call, last)
			}
		}
		if evs, ok := g.Next(); ok || evs != nil {
			t.Fatalf("n=%d: Next after the end returned %d events, %v", n, len(evs), ok)
		}
	}
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	for _, bad := range []Config{{Iterations: 0}, {Iterations: -1}, {Iterations: 5, MaxOutputBytes: -1}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) succeeded, want error", bad)
		}
		if err := WriteJSONL(&bytes.Buffer{}, bad); err == nil {
			t.Errorf("WriteJSONL(%+v) succeeded, want error", bad)
		}
	}
	evs := allEvents(t, Config{Seed: 9, Iterations: 3})
	start, err := evs[0].RunStart()
	if err != nil {
		t.Fatal(err)
	}
	if start.RunID != "synth-9" || start.Task == "" {
		t.Errorf("RUN_START = %+v, want run_id synth-9 and a task", start)
	}
	if want := time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC); !evs[0].Timestamp.Equal(want) {
		t.Errorf("first timestamp %v, want %v", evs[0].Timestamp, want)
	}
	task, err := evs[1].UserMessage()
	if err != nil || task.Content != start.Task {
		t.Errorf("second event is not the task as USER_MESSAGE: %+v, %v", task, err)
	}
	end, err := evs[len(evs)-1].RunEnd()
	if err != nil || end.Status != "COMPLETED" {
		t.Errorf("last event: %+v, %v; want RUN_END COMPLETED", end, err)
	}

	loc := time.FixedZone("UTC+2", 2*3600)
	custom := time.Date(2024, 1, 1, 12, 0, 0, 123_456_789, loc)
	evs = allEvents(t, Config{Seed: 9, Iterations: 2, Start: custom})
	if want := custom.UTC().Truncate(time.Millisecond); !evs[0].Timestamp.Equal(want) || evs[0].Timestamp.Location() != time.UTC {
		t.Errorf("custom start: got %v, want %v in UTC", evs[0].Timestamp, want)
	}
}
