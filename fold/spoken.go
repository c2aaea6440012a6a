package fold

import (
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// SpokenLine renders an iteration that only speaks (user messages and a
// thought, no tool calls, status ok) in full on one line per message,
// headed by its number as an L1 line is:
//
//	[iter 80] user: can you check the flaky test?
//	[iter 80] thought: It failed twice on CI, on the same assertion.
//
// A conversation imported as a run is made of such iterations, and a
// recall shows dozens of them: this form says what RenderL0 says in about
// half the markup. ok is false for any other iteration, which RenderL0
// renders.
func SpokenLine(it *journal.Iteration) (line string, ok bool) {
	if len(it.Calls) > 0 || it.Status != journal.IterOK || it.Thought == "" && len(it.User) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, u := range it.User {
		fmt.Fprintf(&b, "[iter %d] user: %s\n", it.Number, u)
	}
	if it.Thought != "" {
		fmt.Fprintf(&b, "[iter %d] thought: %s\n", it.Number, it.Thought)
	}
	return b.String(), true
}
