package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// OpenAIMessage is one chat-completions message as agents log them.
type OpenAIMessage struct {
	Role string `json:"role"`
	// Content is a string, null, or a list of content parts.
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCallSpec  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Text returns the message's text: the string content, or the text parts of
// a content list joined by newlines (other parts become a placeholder).
func (m OpenAIMessage) Text() (string, error) {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	switch c[0] {
	case '"':
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return "", fmt.Errorf("content: %w", err)
		}
		return s, nil
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(c, &parts); err != nil {
			return "", fmt.Errorf("content parts: %w", err)
		}
		var texts []string
		for _, p := range parts {
			if p.Type == "text" || p.Type == "input_text" || p.Type == "output_text" {
				texts = append(texts, p.Text)
			} else {
				texts = append(texts, "["+p.Type+"]")
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", errors.New(`"content" must be a string, null or a list of parts`)
}

// openAIPos says where a message came from, for error messages: a line of a
// JSONL file, or an index into an array.
type openAIPos struct {
	line  int
	index int
}

// ParseOpenAI reads OpenAI chat messages in any of the accepted shapes: a
// JSON array of messages, an object with a "messages" array, or JSONL with one
// message per line. Errors are *InputError values naming the line or index.
func ParseOpenAI(name string, data []byte) ([]OpenAIMessage, error) {
	msgs, pos, err := parseOpenAI(name, data)
	if err != nil {
		return nil, err
	}
	if err := validateOpenAI(name, msgs, pos); err != nil {
		return nil, err
	}
	return msgs, nil
}

// OpenAIEvents reads OpenAI chat messages as ParseOpenAI does and returns
// them as the journal events an import would store, seq = position + 1.
func OpenAIEvents(name string, data []byte) ([]Event, error) {
	msgs, err := ParseOpenAI(name, data)
	if err != nil {
		return nil, err
	}
	return openAIEvents(msgs)
}

func parseOpenAI(name string, data []byte) ([]OpenAIMessage, []openAIPos, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil, &InputError{File: name, Message: -1, Err: errors.New("empty file: no messages")}
	}
	if trimmed[0] == '[' {
		return parseOpenAIArray(name, trimmed)
	}
	if trimmed[0] != '{' {
		return nil, nil, lineError(name, 1, errors.New("not JSON: expected a message array, an object with \"messages\", or one message object per line"))
	}
	// One object spanning the whole file: {"messages": [...]} (or a single
	// message). Otherwise it is JSONL.
	var whole map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &whole); err == nil {
		if raw, ok := whole["messages"]; ok {
			return parseOpenAIArray(name, raw)
		}
	}
	return parseOpenAIJSONL(name, data)
}

func parseOpenAIArray(name string, data []byte) ([]OpenAIMessage, []openAIPos, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, nil, &InputError{File: name, Message: -1, Err: fmt.Errorf("invalid JSON: %s", jsonErrorText(err))}
	}
	msgs := make([]OpenAIMessage, len(raws))
	pos := make([]openAIPos, len(raws))
	for i, raw := range raws {
		pos[i] = openAIPos{index: i}
		if err := decodeMessage(raw, &msgs[i]); err != nil {
			return nil, nil, messageError(name, i, err)
		}
	}
	return msgs, pos, nil
}

func parseOpenAIJSONL(name string, data []byte) ([]OpenAIMessage, []openAIPos, error) {
	var msgs []OpenAIMessage
	var pos []openAIPos
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m OpenAIMessage
		if err := decodeMessage(line, &m); err != nil {
			return nil, nil, lineError(name, i+1, err)
		}
		pos = append(pos, openAIPos{line: i + 1, index: len(msgs)})
		msgs = append(msgs, m)
	}
	return msgs, pos, nil
}

func decodeMessage(raw []byte, m *OpenAIMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("a message must be a JSON object")
	}
	if err := json.Unmarshal(raw, m); err != nil {
		return fmt.Errorf("invalid message: %s", jsonErrorText(err))
	}
	return nil
}

// validateOpenAI checks roles and that every tool message answers a call of
// the assistant message before it, once.
func validateOpenAI(name string, msgs []OpenAIMessage, pos []openAIPos) error {
	fail := func(i int, err error) error {
		if pos[i].line > 0 {
			return lineError(name, pos[i].line, err)
		}
		return messageError(name, pos[i].index, err)
	}
	// open holds the ids the latest assistant message asked for and that no
	// tool message has answered yet.
	var open map[string]bool
	for i, m := range msgs {
		if _, err := m.Text(); err != nil {
			return fail(i, err)
		}
		switch m.Role {
		case "system", "developer", "user":
		case "assistant":
			open = make(map[string]bool, len(m.ToolCalls))
			for _, tc := range m.ToolCalls {
				if tc.ID == "" {
					return fail(i, fmt.Errorf("tool call %q has no id", tc.Function.Name))
				}
				if tc.Function.Name == "" {
					return fail(i, fmt.Errorf("tool call %q has no function name", tc.ID))
				}
				open[tc.ID] = true
			}
		case "tool":
			if m.ToolCallID == "" {
				return fail(i, errors.New(`tool message without "tool_call_id"`))
			}
			if !open[m.ToolCallID] {
				return &InputError{File: name, Line: pos[i].line, Message: pos[i].index,
					Err:  fmt.Errorf("tool message answers tool_call_id %q, which matches no unanswered call of the assistant message before it", m.ToolCallID),
					Hint: "each tool message must follow the assistant message whose tool_calls include its tool_call_id"}
			}
			delete(open, m.ToolCallID)
		case "":
			return fail(i, errors.New(`message without "role"`))
		default:
			return fail(i, fmt.Errorf("unknown role %q (want system, user, assistant or tool)", m.Role))
		}
	}
	return nil
}

// openAIEvents turns messages into journal events, one per message, with seq
// = index + 1 so that re-importing a grown transcript adds only the new tail.
// OpenAI tool messages carry no status; one whose text starts with "error"
// is recorded as ERROR, since that is how tool frameworks report failures.
func openAIEvents(msgs []OpenAIMessage) ([]Event, error) {
	out := make([]Event, 0, len(msgs))
	for i, m := range msgs {
		text, err := m.Text()
		if err != nil {
			return nil, err
		}
		var typ string
		var payload any
		switch m.Role {
		case "system", "developer":
			typ, payload = TypeSystemPrompt, TextPayload{Content: text}
		case "user":
			typ, payload = TypeUserMessage, TextPayload{Content: text}
		case "assistant":
			typ, payload = TypeThought, ThoughtPayload{Content: text, ToolCalls: m.ToolCalls}
		case "tool":
			status := StatusSuccess
			if looksLikeToolError(text) {
				status = StatusError
			}
			typ, payload = TypeActionResult, ActionResultPayload{ActionID: m.ToolCallID, Status: status, ObservationContent: text, ToolName: m.Name}
		}
		b, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		out = append(out, Event{Seq: int64(i + 1), Type: typ, Payload: b})
	}
	return out, nil
}

func looksLikeToolError(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= 5 && strings.EqualFold(s[:5], "error")
}
