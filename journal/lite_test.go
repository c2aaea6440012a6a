package journal

import (
	"encoding/json"
	"testing"
)

// FuzzLightMatchesFull checks that the append path's light decoders accept
// exactly the payloads the typed decoders accept, and read the same ids,
// names and statuses from them.
func FuzzLightMatchesFull(f *testing.F) {
	for _, s := range []string{
		`{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`,
		`{"content":null,"tool_calls":null}`,
		`{"tool_calls":[null,{"id":null,"function":null}]}`,
		`{"tool_calls":[{"id":"a"}],"tool_calls":null}`,
		`{"tool_calls":[{"id":"a","id":null,"function":{"name":"x"},"function":{"arguments":"y"}}]}`,
		`{"TOOL_CALLS":[{"ID":"a","Function":{"Name":"n"}}]}`,
		`{"content":5}`,
		`{"tool_calls":{}}`,
		`{"tool_calls":[1]}`,
		`{"tool_calls":[{"function":{"name":7}}]}`,
		`{"action_id":"c1","status":"FAILED","observation_content":"x","tool_name":"t","tool_args":{"a":1},"resolved_command":"ls"}`,
		`{"action_id":1}`,
		`{"status":["x"]}`,
		`{"resolved_command":"","resolved_command":null}`,
		`{"observation_content":{"nested":true}}`,
	} {
		for typ := byte(0); typ < 3; typ++ {
			f.Add(typ, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, typ byte, payload []byte) {
		if !json.Valid(payload) || kindOf(trimJSONSpace(payload)) != kindObject {
			return
		}
		e := Event{Seq: 1, Payload: payload}
		switch typ % 3 {
		case 0:
			e.Type = TypeThought
			full, ferr := e.Thought()
			lite, lerr := liteThought(e)
			agree(t, ferr, lerr, payload)
			if ferr == nil {
				if len(full.ToolCalls) != len(lite.ToolCalls) {
					t.Fatalf("%s: %d tool calls, light read %d", payload, len(full.ToolCalls), len(lite.ToolCalls))
				}
				for i := range full.ToolCalls {
					if full.ToolCalls[i].ID != lite.ToolCalls[i].ID || full.ToolCalls[i].Function.Name != lite.ToolCalls[i].Function.Name {
						t.Fatalf("%s: call %d is %+v, light read %+v", payload, i, full.ToolCalls[i], lite.ToolCalls[i])
					}
				}
			}
		case 1:
			e.Type = TypeActionRequest
			full, ferr := e.ActionRequest()
			lite, lerr := liteRequest(e)
			agree(t, ferr, lerr, payload)
			if ferr == nil && (full.ActionID != lite.ActionID || full.ToolName != lite.ToolName || (full.ResolvedCommand == "") != (lite.ResolvedCommand == "")) {
				t.Fatalf("%s: %+v, light read %+v", payload, full, lite)
			}
		case 2:
			e.Type = TypeActionResult
			full, ferr := e.ActionResult()
			lite, lerr := liteResult(e)
			agree(t, ferr, lerr, payload)
			if ferr == nil && (full.ActionID != lite.ActionID || full.Status != lite.Status || full.ToolName != lite.ToolName) {
				t.Fatalf("%s: %+v, light read %+v", payload, full, lite)
			}
		}
	})
}

func agree(t *testing.T, full, lite error, payload []byte) {
	t.Helper()
	if (full == nil) != (lite == nil) {
		t.Fatalf("%s: full decode error %v, light decode error %v", payload, full, lite)
	}
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
