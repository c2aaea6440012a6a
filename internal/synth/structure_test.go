package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// envelopeRE checks the key order and timestamp format of one line.
var envelopeRE = regexp.MustCompile(`^\{"seq":(\d+),"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)","type":"([A-Z_]+)","payload":\{`)

// parseJSONL parses a journal, checking every line's envelope.
func parseJSONL(t *testing.T, data []byte) []journal.Event {
	t.Helper()
	var evs []journal.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if !envelopeRE.Match(line) {
			t.Fatalf("line %d: bad envelope: %.200s", n, line)
		}
		var e journal.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		var obj map[string]any
		if err := json.Unmarshal(e.Payload, &obj); err != nil {
			t.Fatalf("line %d: payload is not a JSON object: %v", n, err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatal("output does not end with a newline")
	}
	return evs
}

// checkStructure verifies the journal invariants for a run of n iterations.
func checkStructure(t *testing.T, evs []journal.Event, n int) {
	t.Helper()
	if len(evs) < 3 || evs[0].Type != journal.TypeRunStart || evs[1].Type != journal.TypeUserMessage {
		t.Fatalf("journal does not start with RUN_START, USER_MESSAGE")
	}
	if last := evs[len(evs)-1]; last.Type != journal.TypeRunEnd {
		t.Fatalf("journal ends with %s, want RUN_END", last.Type)
	}
	var (
		thoughts  int
		callIDs   map[string]bool // tool calls of the current THOUGHT
		results   map[string]int  // ACTION_RESULTs per action id in the iteration
		requested map[string]bool // requested in the iteration
		seen      = map[string]bool{}
		prevTime  time.Time
		hooks     int
	)
	closeIteration := func(seq int64) {
		for id := range callIDs {
			if !requested[id] {
				t.Errorf("before seq %d: tool call %s has no ACTION_REQUEST", seq, id)
			}
		}
		for id := range requested {
			if results[id] != 1 {
				t.Errorf("before seq %d: action %s has %d results, want 1", seq, id, results[id])
			}
		}
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if i > 0 && !e.Timestamp.After(prevTime) {
			t.Fatalf("seq %d: timestamp %v not after %v", e.Seq, e.Timestamp, prevTime)
		}
		prevTime = e.Timestamp
		switch e.Type {
		case journal.TypeThought:
			if callIDs != nil {
				closeIteration(e.Seq)
			}
			thoughts++
			th, err := e.Thought()
			if err != nil {
				t.Fatal(err)
			}
			if th.Content == "" {
				t.Errorf("seq %d: empty thought", e.Seq)
			}
			callIDs, results, requested = map[string]bool{}, map[string]int{}, map[string]bool{}
			for _, tc := range th.ToolCalls {
				if tc.Type != "function" || tc.Function.Name == "" || !json.Valid([]byte(tc.Function.Arguments)) {
					t.Errorf("seq %d: bad tool call %+v", e.Seq, tc)
				}
				if seen[tc.ID] {
					t.Errorf("seq %d: duplicate action id %s", e.Seq, tc.ID)
				}
				seen[tc.ID] = true
				callIDs[tc.ID] = true
			}
		case journal.TypeActionRequest:
			req, err := e.ActionRequest()
			if err != nil {
				t.Fatal(err)
			}
			if !callIDs[req.ActionID] {
				t.Errorf("seq %d: ACTION_REQUEST %s matches no tool call of the preceding THOUGHT", e.Seq, req.ActionID)
			}
			if requested[req.ActionID] {
				t.Errorf("seq %d: second ACTION_REQUEST for %s", e.Seq, req.ActionID)
			}
			if req.ResolvedCommand == "" || len(req.ToolArgs) == 0 || req.ToolArgs[0] != '{' {
				t.Errorf("seq %d: request without command or object args: %+v", e.Seq, req)
			}
			requested[req.ActionID] = true
		case journal.TypeActionResult:
			res, err := e.ActionResult()
			if err != nil {
				t.Fatal(err)
			}
			if !requested[res.ActionID] {
				t.Errorf("seq %d: ACTION_RESULT %s before its request", e.Seq, res.ActionID)
			}
			switch res.Status {
			case journal.StatusSuccess, journal.StatusFailed, journal.StatusError:
			default:
				t.Errorf("seq %d: status %q", e.Seq, res.Status)
			}
			results[res.ActionID]++
		case journal.TypeHookAudit:
			hooks++
		case journal.TypeUserMessage, journal.TypeSystemMessage, journal.TypeRunStart, journal.TypeRunEnd:
		default:
			t.Errorf("seq %d: unexpected type %s", e.Seq, e.Type)
		}
	}
	closeIteration(int64(len(evs)))
	if thoughts != n {
		t.Errorf("%d THOUGHT events, want %d", thoughts, n)
	}
	if n >= 30 && hooks == 0 {
		t.Error("no event of an unknown type (HOOK_EXECUTION_AUDIT)")
	}
}

func TestStructure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed uint64
		n    int
	}{{1, 1}, {2, 7}, {7, 300}, {99, 250}, {1234567, 120}} {
		t.Run(fmt.Sprintf("seed%d_n%d", tc.seed, tc.n), func(t *testing.T) {
			t.Parallel()
			evs := parseJSONL(t, jsonl(t, Config{Seed: tc.seed, Iterations: tc.n}))
			checkStructure(t, evs, tc.n)
		})
	}
}
