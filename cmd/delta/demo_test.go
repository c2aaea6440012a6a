package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoRunsTheWholePipelineOffline runs `delta memory demo` as a user
// would on a fresh machine, and checks each step it promises.
func TestDemoRunsTheWholePipelineOffline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := filepath.Join(b.dir, "demo")
	out, stderr, code := b.run(t, context.Background(), "memory", "demo", "--dir", dir)
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"1. import", "400 iterations", "L3 milestone chapter", "2. folds", "blocks shown",
		"3. recall", "an action failed on", "sync brought back iterations", "4. the window", "partitions",
		"5. savings", "raw history", "% smaller", "6. the HTML view:", "memory.html", "delta memory show --db"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out)
	}
	md, err := os.ReadFile(filepath.Join(dir, ".delta", "context_artifacts", "memory.md"))
	if err != nil || !strings.Contains(string(md), "## ") {
		t.Fatalf("the demo's memory.md: %v %.100q", err, md)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "memory.html")); err != nil || !strings.Contains(string(page), "synth-400") {
		t.Fatalf("the demo's HTML view: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".delta", "memory.db")); err != nil {
		t.Fatalf("the demo's database should stay for show and retrieve: %v", err)
	}
}
