package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
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
		"3. recall", "an action failed on", "sync brought back iterations", "4. the memory file", "partitions",
		"5. savings", "raw history", "% smaller", "6. the HTML view:", "memory.html", "delta memory show --db"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out)
	}
	checkExcerpt(t, "demo", readmeBlock(t, "What the demo prints"), out)
	// The retrieve example finds what it names.
	m := regexp.MustCompile(`delta memory retrieve --db (\S+) --keyword (.+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo suggests no retrieve:\n%s", out)
	}
	keyword := strings.Trim(m[2], "'")
	got, stderr, code := b.run(t, context.Background(), "memory", "retrieve", "--db", m[1], "--keyword", keyword, "--dry-run", "--json")
	if code != 0 || !strings.Contains(got, `"iterations"`) {
		t.Errorf("the suggested retrieve --keyword %s: exit %d, %s%s", keyword, code, got, stderr)
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
