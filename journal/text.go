package journal

import (
	"fmt"
	"strings"
)

// Text renders the iteration as plain text for people and for indexing:
// user messages, the thought, then each tool call with its arguments and its
// result. System notes are included; events of unknown types never are.
func (it *Iteration) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[iteration %d] %s\n", it.Number, it.Status)
	for _, u := range it.User {
		b.WriteString("User: ")
		b.WriteString(u)
		b.WriteByte('\n')
	}
	if it.Thought != "" {
		b.WriteString("Thought: ")
		b.WriteString(it.Thought)
		b.WriteByte('\n')
	}
	for i := range it.Calls {
		c := &it.Calls[i]
		fmt.Fprintf(&b, "Call %s %s", c.Name, compactArgs(c.Args))
		if c.Command != "" {
			fmt.Fprintf(&b, "\n  $ %s", c.Command)
		}
		b.WriteByte('\n')
		switch {
		case c.Result == nil:
			b.WriteString("Result: (pending)\n")
		default:
			fmt.Fprintf(&b, "Result %s:\n", c.Result.Status)
			b.WriteString(c.Result.Output)
			if !strings.HasSuffix(c.Result.Output, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	for _, n := range it.Notes {
		fmt.Fprintf(&b, "System %s: %s\n", n.Level, n.Content)
	}
	return b.String()
}

func compactArgs(a []byte) string {
	s := strings.TrimSpace(string(a))
	if s == "" {
		return "{}"
	}
	return s
}
