// Command apiuser uses delta-memory the way a Go agent in another module
// would: only through the package at the module root and the public
// journal, fold and recall packages. TestAPIUser in the root package builds
// and runs it; by hand, run it with GOFLAGS=-mod=mod go run . (the module
// has no go.sum of its own, so that it never goes stale).
//
// It plays a short agent run into a new workspace, one iteration at a time,
// then folds and unfolds, declares a milestone, bookmarks, recalls, reads
// the window, and prints one line per
// step for the test to check.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	memory "github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// agent builds the run's events: envelope numbering and timestamps.
type agent struct {
	seq   int64
	start time.Time
}

func (a *agent) event(typ string, payload any) (journal.Event, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return journal.Event{}, err
	}
	a.seq++
	return journal.Event{Seq: a.seq, Timestamp: a.start.Add(time.Duration(a.seq) * time.Second), Type: typ, Payload: raw}, nil
}

// iteration is one thought, its shell call and the call's output.
func (a *agent) iteration(n int, thought, command, output string) ([]journal.Event, error) {
	id := fmt.Sprintf("call_%d", n)
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return nil, err
	}
	var out []journal.Event
	for _, e := range []struct {
		typ     string
		payload any
	}{
		{"THOUGHT", map[string]any{"content": thought, "tool_calls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]any{"name": "shell", "arguments": string(args)}},
		}}},
		{"ACTION_REQUEST", map[string]any{"action_id": id, "tool_name": "shell", "tool_args": map[string]string{"command": command}}},
		{"ACTION_RESULT", map[string]any{"action_id": id, "status": "SUCCESS", "observation_content": output}},
	} {
		ev, err := a.event(e.typ, e.payload)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "apiuser")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 6000})
	if err != nil {
		return err
	}
	defer eng.Close()

	const runID = "run-api"
	a := &agent{start: time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC)}
	task := "Find why the nightly backup job stopped uploading."
	var first []journal.Event
	for _, e := range []struct {
		typ     string
		payload any
	}{
		{"RUN_START", map[string]any{"run_id": runID, "task": task}},
		{"USER_MESSAGE", map[string]any{"content": task}},
	} {
		ev, err := a.event(e.typ, e.payload)
		if err != nil {
			return err
		}
		first = append(first, ev)
	}
	if _, _, err := eng.Append(ctx, runID, first...); err != nil {
		return fmt.Errorf("append the task: %w", err)
	}
	for n := 1; n <= 12; n++ {
		thought, command, output := fmt.Sprintf("Step %d of the backup investigation.", n), fmt.Sprintf("cat logs/backup-%02d.log", n), "upload ok"
		if n == 4 {
			thought, command, output = "The uploader reads its bucket from BACKUP_BUCKET_NAME.", "grep -r BACKUP_BUCKET_NAME deploy/", "deploy/cron.env:BACKUP_BUCKET_NAME=nightly-archive-eu"
		}
		events, err := a.iteration(n, thought, command, output)
		if err != nil {
			return err
		}
		if _, _, err := eng.Append(ctx, runID, events...); err != nil {
			return fmt.Errorf("append iteration %d: %w", n, err)
		}
	}
	r, err := eng.ResolveRun(ctx, "")
	if err != nil {
		return err
	}
	fmt.Printf("run %s: %d iterations\n", r.ID, r.Iterations)

	block, err := eng.FoldIterations(ctx, r, 1, 3, fold.L2)
	if err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	if _, err := eng.Unfold(ctx, r, block.ID); err != nil {
		return fmt.Errorf("unfold %s: %w", block.ID, err)
	}
	fmt.Printf("folded and unfolded %s\n", block.ID)

	if _, err := eng.Milestone(ctx, r, "Logs read"); err != nil {
		return fmt.Errorf("milestone: %w", err)
	}
	if err := eng.Bookmark(ctx, r, 4, "the bucket comes from deploy/cron.env"); err != nil {
		return fmt.Errorf("bookmark: %w", err)
	}
	marks, err := eng.Bookmarks(ctx, r)
	if err != nil {
		return err
	}
	fmt.Printf("bookmarks: %d\n", len(marks))

	hits, err := eng.Retrieve(ctx, r, recall.Query{Keywords: []string{"BACKUP_BUCKET_NAME"}, Limit: 1})
	if err != nil {
		return fmt.Errorf("retrieve: %w", err)
	}
	found := false
	for _, h := range hits {
		found = found || (h.Matched[0] <= 4 && 4 <= h.Matched[1])
	}
	fmt.Printf("recalled iteration 4: %v\n", found)

	var window *memory.Window
	if window, err = eng.Context(ctx, r, memory.ContextOptions{}); err != nil {
		return fmt.Errorf("context: %w", err)
	}
	fmt.Printf("within budget: %v\n", window.Tokens <= window.Budget)
	fmt.Printf("messages: %v\n", len(window.Messages) > 0)
	if _, err := json.Marshal(window); err != nil {
		return fmt.Errorf("context as JSON: %w", err)
	}

	return nil
}
