package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVisualizeCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	importSynth(t, b, "8000")

	path := filepath.Join(b.dir, "out", "run.html")
	out, errOut, code := b.run(t, ctx, "memory", "visualize", "--db", b.db, "--budget", "8000", "--output", path, "--json")
	if code != 0 {
		t.Fatalf("visualize: exit %d: %s", code, errOut)
	}
	var res struct {
		Output     string `json:"output"`
		Iterations int    `json:"iterations"`
		Blocks     int    `json:"blocks"`
		Bytes      int    `json:"bytes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("visualize --json: %v\n%s", err, out)
	}
	page := b.read(t, path)
	if res.Output != path || res.Iterations != 400 || res.Blocks == 0 || res.Bytes != len(page) {
		t.Fatalf("visualize --json: %+v (file of %d bytes)", res, len(page))
	}
	if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, `id="memory-data"`) {
		t.Fatalf("not the page:\n%.300s", page)
	}
	left, _ := filepath.Glob(filepath.Join(b.dir, "out", ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// The same state gives the same page.
	again := filepath.Join(b.dir, "again.html")
	out, _, code = b.run(t, ctx, "memory", "visualize", "--db", b.db, "--budget", "8000", "-o", again)
	if code != 0 || !strings.HasPrefix(out, "wrote "+again+": run synth-400, 400 iterations, ") {
		t.Fatalf("visualize: exit %d: %s", code, out)
	}
	if b.read(t, again) != page {
		t.Error("two pages of the same state differ")
	}
}

func TestVisualizeErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	_, errOut, code := b.run(t, ctx, "memory", "visualize", "--db", filepath.Join(b.dir, "none.db"))
	if code != 1 || !strings.Contains(errOut, "Error: ") || !strings.Contains(errOut, "Try: import a journal first") {
		t.Fatalf("no database: exit %d: %s", code, errOut)
	}
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code = b.run(t, ctx, "memory", "visualize", "--db", b.db, "--run", "nope")
	if code != 1 || !strings.Contains(errOut, "Try: list the runs with: delta memory runs") {
		t.Fatalf("unknown run: exit %d: %s", code, errOut)
	}
	_, errOut, code = b.run(t, ctx, "memory", "visualize", "--db", b.db, "--output", "")
	if code != 2 {
		t.Fatalf("empty --output: exit %d: %s", code, errOut)
	}
}

// TestVisualizeDefaultOutput writes memory.html in the current directory.
// It changes directory, so it cannot run in parallel.
func TestVisualizeDefaultOutput(t *testing.T) {
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, context.Background(), "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatal(errOut)
	}
	t.Chdir(b.dir)
	out, errOut, code := b.run(t, context.Background(), "memory", "visualize", "--db", b.db)
	if code != 0 {
		t.Fatalf("visualize: exit %d: %s", code, errOut)
	}
	want, _ := filepath.Abs("memory.html")
	if _, err := os.Stat(want); err != nil || !strings.HasPrefix(out, "wrote "+want+": run run-1, 1 iterations, 0 blocks") {
		t.Fatalf("visualize wrote %q (%v)", out, err)
	}
}
