package main

import (
	"context"
	"strings"
	"testing"
)

// TestContextForASubtask: context --subtask prints a sub-agent's context
// under --budget, with the subtask and what recall found for it; an empty
// subtask is a usage error.
func TestContextForASubtask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if _, stderr, code := b.run(t, ctx, "memory", "import", "--db", b.db, b.synthJournal(t, 120)); code != 0 {
		t.Fatalf("import: exit %d, %s", code, stderr)
	}
	out, stderr, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "3000", "--subtask", "rerun the failing cache tests")
	if code != 0 {
		t.Fatalf("context --subtask: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"### Subtask\nrerun the failing cache tests", "## Retrieved memory", `(recalled for "rerun the failing cache tests")`} {
		if !strings.Contains(out, want) {
			t.Errorf("the sub-agent's context lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "## Working memory") || strings.Contains(out, "## Long-term memory") {
		t.Errorf("the sub-agent's context holds the parent's window:\n%s", out)
	}
	if _, stderr, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--subtask", " "); code != exitUsage || !strings.Contains(stderr, "--subtask") {
		t.Errorf("an empty --subtask: exit %d, %s", code, stderr)
	}
}
