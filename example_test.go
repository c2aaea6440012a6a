package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	memory "github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// exampleEvents is a short agent run in Delta's envelope: the task, then
// three iterations, each a thought, the tool call it asks for, and the
// result.
func exampleEvents() []journal.Event {
	start := time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC)
	var events []journal.Event
	add := func(typ string, payload any) {
		raw, err := json.Marshal(payload)
		if err != nil {
			log.Fatal(err)
		}
		seq := int64(len(events) + 1)
		events = append(events, journal.Event{Seq: seq, Timestamp: start.Add(time.Duration(seq) * time.Second), Type: typ, Payload: raw})
	}
	task := "Make the metrics server listen on the port in config/settings.yaml."
	add("RUN_START", map[string]any{"run_id": "run-1", "task": task})
	add("USER_MESSAGE", map[string]any{"content": task})
	steps := []struct{ thought, tool, key, arg, out string }{
		{"Read the settings to find the configured port.", "read_file", "path", "config/settings.yaml", "metrics:\n  port: 9464\n"},
		{"The server hard-codes 8080; point it at metrics.port.", "write_file", "path", "src/metrics/server.py", "wrote 1.1 KB"},
		{"Run the tests for the metrics server.", "shell", "command", "pytest tests/test_metrics.py", "3 passed in 0.41s"},
	}
	for i, s := range steps {
		id := fmt.Sprintf("call_%d", i+1)
		args, err := json.Marshal(map[string]string{s.key: s.arg})
		if err != nil {
			log.Fatal(err)
		}
		add("THOUGHT", map[string]any{"content": s.thought, "tool_calls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]any{"name": s.tool, "arguments": string(args)}},
		}})
		add("ACTION_REQUEST", map[string]any{"action_id": id, "tool_name": s.tool, "tool_args": map[string]string{s.key: s.arg}})
		add("ACTION_RESULT", map[string]any{"action_id": id, "status": "SUCCESS", "observation_content": s.out})
	}
	return events
}

// newExample opens an engine on a new workspace in a temporary directory
// and appends the example run to it. cleanup closes the engine and removes
// the directory.
func newExample(ctx context.Context) (eng *memory.Engine, run journal.Run, cleanup func()) {
	dir, err := os.MkdirTemp("", "delta-memory-example")
	if err != nil {
		log.Fatal(err)
	}
	eng, err = memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 4000})
	if err != nil {
		log.Fatal(err)
	}
	res, _, err := eng.Append(ctx, "run-1", exampleEvents()...)
	if err != nil {
		log.Fatal(err)
	}
	if run, err = eng.ResolveRun(ctx, res.Run); err != nil {
		log.Fatal(err)
	}
	return eng, run, func() { eng.Close(); os.RemoveAll(dir) }
}

// headings prints the Markdown headings of a window's partitions.
func headings(window *memory.Window) {
	for line := range strings.Lines(window.Markdown()) {
		if strings.HasPrefix(line, "## ") {
			fmt.Print(line)
		}
	}
}

// Open a workspace, append an agent's events, and build the context for
// its next model call.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "delta-memory-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 4000})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	res, _, err := eng.Append(ctx, "run-1", exampleEvents()...)
	if err != nil {
		log.Fatal(err)
	}
	run, err := eng.ResolveRun(ctx, res.Run)
	if err != nil {
		log.Fatal(err)
	}
	window, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d events, %d iterations\n", res.Run, res.Added, res.Iterations)
	fmt.Println("within budget:", window.Tokens <= window.Budget)
	headings(window)
	// Output:
	// run-1: 11 events, 3 iterations
	// within budget: true
	// ## Static
	// ## Working memory
	// ## Dynamic
}

// Fold two iterations into a summary, recall one of them by keyword into
// the next window, and unfold the summary again.
func ExampleEngine_Retrieve() {
	ctx := context.Background()
	eng, run, cleanup := newExample(ctx)
	defer cleanup()

	block, err := eng.FoldIterations(ctx, run, 1, 2, fold.L2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("folded %s\n", block.ID)

	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"config/settings.yaml"}, Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("recalled iterations %d-%d, shown in full already: %v\n", h.Iterations[0], h.Iterations[1], h.Visible)
	}
	window, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		log.Fatal(err)
	}
	headings(window)

	if _, err := eng.Unfold(ctx, run, block.ID); err != nil {
		log.Fatal(err)
	}
	// Output:
	// folded L2-1-2
	// recalled iterations 1-2, shown in full already: false
	// ## Static
	// ## Short-term memory
	// ## Run state as of the summaries
	// ## Working memory
	// ## Retrieved memory
	// ## Dynamic
}

// Sync is how Delta Engine's computed_file generator uses the engine: each
// call imports what was appended to the journal file since the last one
// and returns the Markdown for the memory file.
func ExampleEngine_Sync() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "delta-memory-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	var jsonl []byte
	for _, e := range exampleEvents() {
		jsonl = append(journal.AppendDelta(jsonl, e), '\n')
	}
	path := filepath.Join(dir, "journal.jsonl")
	if err := os.WriteFile(path, jsonl, 0o644); err != nil {
		log.Fatal(err)
	}

	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 4000})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Sync(ctx, memory.SyncOptions{Journal: path, KeepRecent: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("imported %d events of run %s\n", res.Import.Added, res.Import.Run)
	headings(res.Context)
	// Output:
	// imported 11 events of run run-1
	// ## Static
	// ## Working memory
	// ## Dynamic
}

// Bookmark an iteration so that it keeps its detail, with a note for the
// agent.
func ExampleEngine_Bookmark() {
	ctx := context.Background()
	eng, run, cleanup := newExample(ctx)
	defer cleanup()

	if err := eng.Bookmark(ctx, run, 1, "the port is configured in metrics.port"); err != nil {
		log.Fatal(err)
	}
	marks, err := eng.Bookmarks(ctx, run)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range marks {
		fmt.Printf("iteration %d: %s\n", m.Iteration, m.Note)
	}
	// Output:
	// iteration 1: the port is configured in metrics.port
}
