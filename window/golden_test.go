package window_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenSmall is a hand-written 14-iteration Delta journal: reads, a failing
// test with a traceback, a milestone at iteration 6, a user message, a fix,
// writes and a passing suite.
var goldenSmall = filepath.Join("..", "testdata", "golden", "small")

// TestGoldenSmall imports the small journal at a budget of 4000 tokens and
// compares the context window, as `delta memory context` prints it in the
// markdown and messages formats, with the golden files. Run with -update to
// rewrite them, then read the diff.
func TestGoldenSmall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, _, err := eng.Import(ctx, filepath.Join(goldenSmall, "journal.jsonl"), journal.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run != "golden-small" || res.Iterations != 14 {
		t.Fatalf("import: run %q, %d iterations", res.Run, res.Iterations)
	}
	run, err := eng.Journal.Run(ctx, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := json.MarshalIndent(cx.Messages, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The CLI ends the messages JSON with a newline; so does the file.
	msgs = append(msgs, '\n')
	checkGolden(t, filepath.Join(goldenSmall, "context.md"), []byte(cx.Markdown()))
	checkGolden(t, filepath.Join(goldenSmall, "messages.json"), msgs)
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenSmall -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -run TestGoldenSmall -update rewrites it):\n%s", path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, a, b)
		}
	}
	return "(same lines)"
}
