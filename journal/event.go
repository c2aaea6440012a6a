package journal

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event types written by Delta Engine. Other types may appear as the runtime
// evolves; they are stored as they are and kept out of iteration text.
const (
	TypeRunStart      = "RUN_START"
	TypeRunEnd        = "RUN_END"
	TypeUserMessage   = "USER_MESSAGE"
	TypeThought       = "THOUGHT"
	TypeActionRequest = "ACTION_REQUEST"
	TypeActionResult  = "ACTION_RESULT"
	TypeSystemMessage = "SYSTEM_MESSAGE"
	TypeHookAudit     = "HOOK_EXECUTION_AUDIT"

	// TypeSystemPrompt is ours, not Delta's: the OpenAI importer stores a
	// system message under it so that the prompt is kept in the journal too.
	TypeSystemPrompt = "SYSTEM_PROMPT"
)

// Action result statuses used by Delta Engine.
const (
	StatusSuccess = "SUCCESS"
	StatusFailed  = "FAILED"
	StatusError   = "ERROR"
)

// Event is one journal record: Delta's envelope {seq, timestamp, type, payload}.
// Payload holds the original JSON bytes so that nothing is lost; the typed
// accessors decode it on demand.
type Event struct {
	Seq       int64           `json:"seq"`
	Timestamp time.Time       `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// RunStartPayload is the payload of a RUN_START event.
type RunStartPayload struct {
	RunID    string `json:"run_id"`
	Task     string `json:"task"`
	AgentRef string `json:"agent_ref,omitempty"`
}

// RunEndPayload is the payload of a RUN_END event.
type RunEndPayload struct {
	Status string `json:"status"`
}

// TextPayload is the payload of USER_MESSAGE and SYSTEM_PROMPT events.
type TextPayload struct {
	Content string `json:"content"`
}

// ThoughtPayload is the payload of a THOUGHT event: the model's text and the
// tool calls it asked for, in OpenAI's shape.
type ThoughtPayload struct {
	Content          string         `json:"content"`
	LLMInvocationRef string         `json:"llm_invocation_ref,omitempty"`
	ToolCalls        []ToolCallSpec `json:"tool_calls,omitempty"`
}

// ToolCallSpec is one tool call as the model wrote it.
type ToolCallSpec struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ActionRequestPayload is the payload of an ACTION_REQUEST event.
type ActionRequestPayload struct {
	ActionID        string          `json:"action_id"`
	ToolName        string          `json:"tool_name"`
	ToolArgs        json.RawMessage `json:"tool_args,omitempty"`
	ResolvedCommand string          `json:"resolved_command,omitempty"`
}

// ActionResultPayload is the payload of an ACTION_RESULT event. ToolName is
// not part of Delta's payload; the OpenAI importer fills it from the tool
// message's name.
type ActionResultPayload struct {
	ActionID           string `json:"action_id"`
	Status             string `json:"status"`
	ObservationContent string `json:"observation_content"`
	ExecutionRef       string `json:"execution_ref,omitempty"`
	ToolName           string `json:"tool_name,omitempty"`
}

// SystemMessagePayload is the payload of a SYSTEM_MESSAGE event.
type SystemMessagePayload struct {
	Level   string `json:"level"`
	Content string `json:"content"`
}

// PayloadError is a payload that does not fit its event type, such as a
// THOUGHT whose tool_calls is not a list.
type PayloadError struct {
	Seq  int64
	Type string
	Err  error
}

// Error names the event whose payload did not decode.
func (e *PayloadError) Error() string {
	return fmt.Sprintf("event seq %d (%s): payload does not match the type: %v", e.Seq, e.Type, e.Err)
}

// Unwrap returns the decoding error.
func (e *PayloadError) Unwrap() error { return e.Err }

// decodeAs decodes the payload of e into v, checking the event type first.
func decodeAs[T any](e Event, typ string) (T, error) {
	var v T
	if e.Type != typ {
		return v, fmt.Errorf("event %d is %s, not %s", e.Seq, e.Type, typ)
	}
	if err := json.Unmarshal(e.Payload, &v); err != nil {
		return v, &PayloadError{Seq: e.Seq, Type: e.Type, Err: err}
	}
	return v, nil
}

// RunStart decodes a RUN_START payload. It fails if e is another type or the
// payload does not match.
func (e Event) RunStart() (RunStartPayload, error) { return decodeAs[RunStartPayload](e, TypeRunStart) }

// RunEnd decodes a RUN_END payload.
func (e Event) RunEnd() (RunEndPayload, error) { return decodeAs[RunEndPayload](e, TypeRunEnd) }

// UserMessage decodes a USER_MESSAGE payload.
func (e Event) UserMessage() (TextPayload, error) { return decodeAs[TextPayload](e, TypeUserMessage) }

// SystemPrompt decodes a SYSTEM_PROMPT payload.
func (e Event) SystemPrompt() (TextPayload, error) {
	return decodeAs[TextPayload](e, TypeSystemPrompt)
}

// Thought decodes a THOUGHT payload.
func (e Event) Thought() (ThoughtPayload, error) {
	if e.Type == TypeThought {
		if p, ok := readThought(e.Payload); ok {
			return p, nil
		}
	}
	return decodeAs[ThoughtPayload](e, TypeThought)
}

// ActionRequest decodes an ACTION_REQUEST payload.
func (e Event) ActionRequest() (ActionRequestPayload, error) {
	if e.Type == TypeActionRequest {
		if p, ok := readActionRequest(e.Payload); ok {
			return p, nil
		}
	}
	return decodeAs[ActionRequestPayload](e, TypeActionRequest)
}

// ActionResult decodes an ACTION_RESULT payload.
func (e Event) ActionResult() (ActionResultPayload, error) {
	if e.Type == TypeActionResult {
		if p, ok := readActionResult(e.Payload); ok {
			return p, nil
		}
	}
	return decodeAs[ActionResultPayload](e, TypeActionResult)
}

// SystemMessage decodes a SYSTEM_MESSAGE payload.
func (e Event) SystemMessage() (SystemMessagePayload, error) {
	return decodeAs[SystemMessagePayload](e, TypeSystemMessage)
}

// IsFailureStatus reports whether an ACTION_RESULT status means the action failed.
func IsFailureStatus(status string) bool {
	return status == StatusFailed || status == StatusError
}
