package journal

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// payloadSeeds are payloads of each shape the readers take or give up on.
var payloadSeeds = []string{
	`{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`,
	`{"content":"line one\nline \"two\"\t\\ \/ \b\f\r end","llm_invocation_ref":"r"}`,
	`{"content":"caf\u00e9 \ud83d\ude00 \ud800 lone","tool_calls":[]}`,
	"{\"content\":\"bad \xff utf8 \\n\"}",
	"{\"content\":\"bad \xff utf8\"}",
	`{"content":null,"tool_calls":null}`,
	`{"tool_calls":[{"id":"a"}],"tool_calls":null}`,
	`{"Content":"folded","CONTENT":"twice"}`,
	`{"ſtatus":"long s","status":"ok"}`,
	`{"content":5}`,
	`{"tool_calls":{}}`,
	`{"tool_calls":[1]}`,
	`{"action_id":"c1","status":"FAILED","observation_content":"x\ny","tool_name":"t","tool_args":{"a":[1,2]},"resolved_command":"ls"}`,
	`{"tool_args":null,"action_id":"c"}`,
	`{"tool_args":"str","tool_args":7}`,
	`{"action_id":1}`,
	`{"resolved_command":"","resolved_command":null}`,
	`{"observation_content":{"nested":true}}`,
	`{"unknown":[1,{"a":2}],"status":"ok"}`,
	` {"status":"space before"}`,
	`null`,
	`[]`,
	`{"status":"unterminated`,
}

// decodeBoth decodes payload as the event type typ (0 thought, 1 request,
// 2 result) with the reader and with encoding/json, and fails t if they
// differ in value or in whether they fail.
func decodeBoth(t *testing.T, typ byte, payload []byte) {
	t.Helper()
	var got, want any
	var gerr, werr error
	e := Event{Seq: 1, Payload: payload}
	switch typ % 3 {
	case 0:
		e.Type = TypeThought
		got, gerr = e.Thought()
		want, werr = decodeAs[ThoughtPayload](e, TypeThought)
	case 1:
		e.Type = TypeActionRequest
		got, gerr = e.ActionRequest()
		want, werr = decodeAs[ActionRequestPayload](e, TypeActionRequest)
	case 2:
		e.Type = TypeActionResult
		got, gerr = e.ActionResult()
		want, werr = decodeAs[ActionResultPayload](e, TypeActionResult)
	}
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, encoding/json says %v", payload, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q as %s:\n got %#v\nwant %#v", payload, e.Type, got, want)
	}
}

// TestPayloadReadersMatchEncodingJSON decodes every thought, request and
// result payload of the bundled journal, and the seeds, both ways.
func TestPayloadReadersMatchEncodingJSON(t *testing.T) {
	f, err := os.Open("../testdata/journals/synth-400.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var line struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch line.Type {
		case TypeThought:
			decodeBoth(t, 0, line.Payload)
		case TypeActionRequest:
			decodeBoth(t, 1, line.Payload)
		case TypeActionResult:
			decodeBoth(t, 2, line.Payload)
		default:
			continue
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d payloads", n)
	}
	for _, s := range payloadSeeds {
		for typ := byte(0); typ < 3; typ++ {
			decodeBoth(t, typ, []byte(s))
		}
	}
}

// FuzzPayloadReaders checks the readers against encoding/json on any input.
func FuzzPayloadReaders(f *testing.F) {
	for _, s := range payloadSeeds {
		for typ := byte(0); typ < 3; typ++ {
			f.Add(typ, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, typ byte, payload []byte) {
		decodeBoth(t, typ, payload)
	})
}
