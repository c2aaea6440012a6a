package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Reading a run back decodes every thought, action and result payload, and
// with encoding/json, which checks a payload whole before decoding it, that
// was a tenth of building the recall index. The readers here decode the
// three payload types in the single pass of scanObject, for the shapes the
// journal writes: members that are strings (or null), a tool_calls list and
// raw tool_args. Anything else (a member of another kind, a key given
// twice, a null list) makes them give up, and encoding/json decodes the
// payload, so the result and any error are encoding/json's own.
// TestPayloadReadersMatchEncodingJSON and FuzzPayloadReaders hold them to
// that.

// errGiveUp stops a reader: encoding/json decodes the payload instead.
var errGiveUp = errors.New("payload left to encoding/json")

// payloadField is one member a reader takes.
type payloadField struct {
	name string
	set  func(value []byte) error
}

// readPayload runs fields' setters over the members of payload, matching
// keys as encoding/json does (keyIs). It reports false when the payload is
// not an object, a setter gave up, or a field came twice.
func readPayload(payload []byte, fields []payloadField) bool {
	if kindOf(payload) != kindObject {
		return false
	}
	var seen uint32
	err := scanObject(payload, func(key, value []byte) error {
		for i, f := range fields {
			if !keyIs(key, f.name) {
				continue
			}
			if seen&(1<<i) != 0 {
				return errGiveUp
			}
			seen |= 1 << i
			return f.set(value)
		}
		return nil
	})
	return err == nil
}

// stringMember sets *dst from a string member; null leaves it, as
// encoding/json does.
func stringMember(dst *string) func([]byte) error {
	return func(v []byte) error {
		switch kindOf(v) {
		case kindNull:
			return nil
		case kindString:
			s, ok := unquote(v)
			if !ok {
				var err error
				if s, err = jsonStringSlow(v); err != nil {
					return errGiveUp
				}
			}
			*dst = s
			return nil
		}
		return errGiveUp
	}
}

func readThought(payload []byte) (ThoughtPayload, bool) {
	var p ThoughtPayload
	ok := readPayload(payload, []payloadField{
		{"content", stringMember(&p.Content)},
		{"llm_invocation_ref", stringMember(&p.LLMInvocationRef)},
		{"tool_calls", func(v []byte) error {
			if kindOf(v) != kindArray {
				return errGiveUp
			}
			if err := json.Unmarshal(v, &p.ToolCalls); err != nil {
				return errGiveUp
			}
			return nil
		}},
	})
	return p, ok
}

func readActionRequest(payload []byte) (ActionRequestPayload, bool) {
	var p ActionRequestPayload
	ok := readPayload(payload, []payloadField{
		{"action_id", stringMember(&p.ActionID)},
		{"tool_name", stringMember(&p.ToolName)},
		{"tool_args", func(v []byte) error {
			if kindOf(v) == kindNull {
				return errGiveUp
			}
			p.ToolArgs = append(json.RawMessage(nil), v...)
			return nil
		}},
		{"resolved_command", stringMember(&p.ResolvedCommand)},
	})
	return p, ok
}

func readActionResult(payload []byte) (ActionResultPayload, bool) {
	var p ActionResultPayload
	ok := readPayload(payload, []payloadField{
		{"action_id", stringMember(&p.ActionID)},
		{"status", stringMember(&p.Status)},
		{"observation_content", stringMember(&p.ObservationContent)},
		{"execution_ref", stringMember(&p.ExecutionRef)},
		{"tool_name", stringMember(&p.ToolName)},
	})
	return p, ok
}

// unquote decodes a JSON string span (quotes included) that scanObject
// has checked, for valid UTF-8 and the escapes other than \u; it reports
// false for anything else, which jsonStringSlow decodes.
func unquote(span []byte) (string, bool) {
	inner := span[1 : len(span)-1]
	esc := bytes.IndexByte(inner, '\\')
	if esc < 0 {
		s, err := jsonString(span)
		return s, err == nil
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	out := make([]byte, esc, len(inner))
	copy(out, inner[:esc])
	for i := esc; i < len(inner); i++ {
		c := inner[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i == len(inner) {
			return "", false
		}
		switch inner[i] {
		case '"', '\\', '/':
			out = append(out, inner[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // \u, left to encoding/json with its surrogate rules
			return "", false
		}
	}
	return string(out), true
}
