package journal

import (
	"fmt"
)

// Light decoders read only what grouping needs on the append path: ids,
// names and statuses, not thoughts or tool outputs, which are most of a
// journal's bytes. They still check the JSON kind of every field the full
// payload types declare, exactly as encoding/json would, so that an event
// the append path accepts always decodes later on the read path.
// FuzzLightMatchesFull holds them to that.

// kindCheck reports a field whose JSON kind its Go type cannot take.
type kindCheck func(value []byte) error

// stringField accepts what encoding/json decodes into a string: a string or null.
func stringField(value []byte) error { return expectKind(value, kindString) }

// anyField accepts any value (json.RawMessage).
func anyField([]byte) error { return nil }

func expectKind(value []byte, want byte) error {
	if k := kindOf(value); k != want && k != kindNull {
		return fmt.Errorf("cannot unmarshal %s into a field of type %s", kindName(k), goType(want))
	}
	return nil
}

func goType(k byte) string {
	switch k {
	case kindString:
		return "string"
	case kindArray:
		return "slice"
	default:
		return "struct"
	}
}

// checkFields checks an object's members against the fields of a payload
// type, calling take for those the caller wants to read.
func checkFields(obj []byte, fields map[string]kindCheck, take func(name string, value []byte) error) error {
	if k := kindOf(obj); k == kindNull {
		return nil
	} else if k != kindObject {
		return fmt.Errorf("cannot unmarshal %s into a struct", kindName(k))
	}
	return scanObject(obj, func(key, value []byte) error {
		for name, check := range fields {
			if !keyIs(key, name) {
				continue
			}
			if err := check(value); err != nil {
				return fmt.Errorf("field %q: %w", name, err)
			}
			if take != nil {
				return take(name, value)
			}
			return nil
		}
		return nil
	})
}

var (
	thoughtFields  = map[string]kindCheck{"content": stringField, "llm_invocation_ref": stringField, "tool_calls": toolCallsField}
	toolCallFields = map[string]kindCheck{"id": stringField, "type": stringField, "function": functionField}
	functionFields = map[string]kindCheck{"name": stringField, "arguments": stringField}
	requestFields  = map[string]kindCheck{"action_id": stringField, "tool_name": stringField, "tool_args": anyField, "resolved_command": stringField}
	resultFields   = map[string]kindCheck{"action_id": stringField, "status": stringField, "observation_content": stringField, "execution_ref": stringField, "tool_name": stringField}
)

func toolCallsField(value []byte) error {
	if err := expectKind(value, kindArray); err != nil || kindOf(value) == kindNull {
		return err
	}
	return scanArray(value, func(elem []byte) error { return checkFields(elem, toolCallFields, nil) })
}

func functionField(value []byte) error { return checkFields(value, functionFields, nil) }

// setString decodes a string-or-null field already kind-checked into dst.
// As with encoding/json, null leaves dst as it was.
func setString(dst *string, value []byte) error {
	if kindOf(value) == kindNull {
		return nil
	}
	s, err := jsonString(value)
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

// liteThought reads a THOUGHT's tool call ids and names.
func liteThought(e Event) (ThoughtPayload, error) {
	var p ThoughtPayload
	err := checkFields(e.Payload, thoughtFields, func(name string, value []byte) error {
		if name != "tool_calls" {
			return nil
		}
		if kindOf(value) == kindNull {
			p.ToolCalls = nil // as encoding/json does with a null slice
			return nil
		}
		p.ToolCalls = p.ToolCalls[:0]
		return scanArray(value, func(elem []byte) error {
			var tc ToolCallSpec
			err := checkFields(elem, toolCallFields, func(name string, v []byte) (err error) {
				switch name {
				case "id":
					err = setString(&tc.ID, v)
				case "function":
					err = checkFields(v, functionFields, func(name string, v []byte) (err error) {
						if name == "name" {
							err = setString(&tc.Function.Name, v)
						}
						return err
					})
				}
				return err
			})
			p.ToolCalls = append(p.ToolCalls, tc)
			return err
		})
	})
	if err != nil {
		return p, &PayloadError{Seq: e.Seq, Type: e.Type, Err: err}
	}
	return p, nil
}

// liteRequest reads an ACTION_REQUEST's action id and tool name.
func liteRequest(e Event) (ActionRequestPayload, error) {
	var p ActionRequestPayload
	err := checkFields(e.Payload, requestFields, func(name string, v []byte) (err error) {
		switch name {
		case "action_id":
			err = setString(&p.ActionID, v)
		case "tool_name":
			err = setString(&p.ToolName, v)
		case "resolved_command":
			// Only whether there is one matters to grouping.
			if kindOf(v) == kindString {
				p.ResolvedCommand = ""
				if len(v) > 2 {
					p.ResolvedCommand = "…"
				}
			}
		}
		return err
	})
	if err != nil {
		return p, &PayloadError{Seq: e.Seq, Type: e.Type, Err: err}
	}
	return p, nil
}

// liteResult reads an ACTION_RESULT's action id, status and tool name.
func liteResult(e Event) (ActionResultPayload, error) {
	var p ActionResultPayload
	err := checkFields(e.Payload, resultFields, func(name string, v []byte) (err error) {
		switch name {
		case "action_id":
			err = setString(&p.ActionID, v)
		case "status":
			err = setString(&p.Status, v)
		case "tool_name":
			err = setString(&p.ToolName, v)
		}
		return err
	})
	if err != nil {
		return p, &PayloadError{Seq: e.Seq, Type: e.Type, Err: err}
	}
	return p, nil
}
