package journal

import (
	"encoding/json"
	"time"
)

// Iteration statuses.
const (
	// IterOK: every tool call has a successful result (or there were none).
	IterOK = "ok"
	// IterFailed: at least one action failed.
	IterFailed = "failed"
	// IterPending: a tool call has no result yet (the run is mid-iteration).
	IterPending = "pending"
)

// Iteration is one Think-Act-Observe cycle: the user messages that came in
// before it, a THOUGHT, and the tool calls the thought asked for, each paired
// with its result. Iterations are numbered from 1; events before the first
// iteration (RUN_START, the task) belong to the run, not to an iteration.
type Iteration struct {
	Run        string     `json:"run"`
	Number     int        `json:"number"`
	FirstSeq   int64      `json:"first_seq"`
	LastSeq    int64      `json:"last_seq"`
	ThoughtSeq int64      `json:"thought_seq,omitempty"`
	Start      time.Time  `json:"start"`
	End        time.Time  `json:"end"`
	User       []string   `json:"user,omitempty"`
	Thought    string     `json:"thought"`
	Calls      []ToolCall `json:"calls,omitempty"`
	// Notes are SYSTEM_MESSAGE texts raised during the iteration.
	Notes    []Note `json:"notes,omitempty"`
	Status   string `json:"status"`
	HasError bool   `json:"has_error"`
	// Events are the raw events of the iteration, when the reader asked for them.
	Events []Event `json:"events,omitempty"`
}

// ToolCall is one action: the model's request paired with the runtime's result.
type ToolCall struct {
	ID string `json:"id"`
	// Name is the tool's name; for a result that matched no request it is the
	// name the result carried, or "unknown".
	Name string `json:"name"`
	// Args holds the arguments as a JSON value (an object, normally).
	Args json.RawMessage `json:"args"`
	// Command is the command line Delta resolved the call to, if any.
	Command    string      `json:"command,omitempty"`
	RequestSeq int64       `json:"request_seq,omitempty"`
	Result     *ToolResult `json:"result,omitempty"`
	// Orphan is set when a result arrived for a call this iteration never made.
	Orphan bool `json:"orphan,omitempty"`
}

// ToolResult is the outcome of a tool call.
type ToolResult struct {
	Seq    int64  `json:"seq"`
	Status string `json:"status"`
	Output string `json:"output"`
}

// Failed reports whether the result's status is FAILED or ERROR.
func (r *ToolResult) Failed() bool { return r != nil && IsFailureStatus(r.Status) }

// Note is a system message raised during an iteration.
type Note struct {
	Level   string `json:"level"`
	Content string `json:"content"`
}

// Counts returns how many calls the iteration made, how many have results,
// and how many of those failed.
func (it *Iteration) Counts() (calls, results, failures int) {
	for i := range it.Calls {
		calls++
		if r := it.Calls[i].Result; r != nil {
			results++
			if r.Failed() {
				failures++
			}
		}
	}
	return calls, results, failures
}

// refresh recomputes Status and HasError from the calls and notes.
func (it *Iteration) refresh() {
	calls, results, failures := it.Counts()
	errNote := false
	for _, n := range it.Notes {
		if n.Level == "ERROR" {
			errNote = true
		}
	}
	switch {
	case failures > 0:
		it.Status = IterFailed
	case results < calls:
		it.Status = IterPending
	default:
		it.Status = IterOK
	}
	it.HasError = failures > 0 || errNote
}
