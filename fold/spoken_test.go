package fold

import (
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

func TestSpokenLine(t *testing.T) {
	t.Parallel()
	result := &journal.ToolResult{Status: journal.StatusSuccess, Output: "ok"}
	cases := []struct {
		name string
		it   journal.Iteration
		want string
		ok   bool
	}{
		{"thought", journal.Iteration{Number: 7, Status: journal.IterOK, Thought: "Caroline: I signed up for pottery."},
			"[iter 7] thought: Caroline: I signed up for pottery.\n", true},
		{"user and thought", journal.Iteration{Number: 8, Status: journal.IterOK, User: []string{"is the test flaky?"}, Thought: "It failed twice."},
			"[iter 8] user: is the test flaky?\n[iter 8] thought: It failed twice.\n", true},
		{"a tool call", journal.Iteration{Number: 9, Status: journal.IterOK, Thought: "Run it.", Calls: []journal.ToolCall{{Name: "run_shell", Result: result}}}, "", false},
		{"failed", journal.Iteration{Number: 10, Status: journal.IterFailed, Thought: "It broke."}, "", false},
		{"silent", journal.Iteration{Number: 11, Status: journal.IterOK}, "", false},
	}
	for _, c := range cases {
		got, ok := SpokenLine(&c.it)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: SpokenLine = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
