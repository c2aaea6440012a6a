package fold_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/journal"
)

// tcall is one tool call of a hand-built iteration. An empty Status leaves
// the call pending (no ACTION_RESULT).
type tcall struct {
	Tool   string
	Args   map[string]any
	Status string
	Output string
}

func okCall(tool string, args map[string]any, out string) tcall {
	return tcall{Tool: tool, Args: args, Status: journal.StatusSuccess, Output: out}
}

func failCall(tool string, args map[string]any, out string) tcall {
	return tcall{Tool: tool, Args: args, Status: journal.StatusFailed, Output: out}
}

// deltaLog builds a Delta journal event by event, with increasing seqs and
// timestamps one second apart, so the same calls give the same journal.
type deltaLog struct {
	run    string
	seq    int64
	iter   int
	events []journal.Event
}

var logStart = time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC)

func newDeltaLog(run, task string) *deltaLog {
	l := &deltaLog{run: run}
	l.emit(journal.TypeRunStart, map[string]any{"run_id": run, "task": task})
	return l
}

func (l *deltaLog) emit(typ string, payload any) {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	l.seq++
	l.events = append(l.events, journal.Event{Seq: l.seq, Timestamp: logStart.Add(time.Duration(l.seq) * time.Second), Type: typ, Payload: b})
}

// think adds one iteration: a THOUGHT asking for calls, then each call's
// request and result.
func (l *deltaLog) think(text string, calls ...tcall) {
	l.iter++
	var specs []map[string]any
	for i, c := range calls {
		args, _ := json.Marshal(c.Args)
		specs = append(specs, map[string]any{"id": l.callID(i), "type": "function",
			"function": map[string]any{"name": c.Tool, "arguments": string(args)}})
	}
	p := map[string]any{"content": text}
	if len(specs) > 0 {
		p["tool_calls"] = specs
	}
	l.emit(journal.TypeThought, p)
	for i, c := range calls {
		l.emit(journal.TypeActionRequest, map[string]any{"action_id": l.callID(i), "tool_name": c.Tool, "tool_args": c.Args})
	}
	for i, c := range calls {
		if c.Status != "" {
			l.emit(journal.TypeActionResult, map[string]any{"action_id": l.callID(i), "status": c.Status, "observation_content": c.Output})
		}
	}
}

func (l *deltaLog) callID(i int) string { return fmt.Sprintf("call_%d_%d", l.iter, i+1) }

// take returns the events built since the last take.
func (l *deltaLog) take() []journal.Event {
	ev := l.events
	l.events = nil
	return ev
}

// openEngine opens an engine on a fresh database in t.TempDir(). tune, if
// not nil, changes the fold settings before anything runs; the folder, the
// scheduler and the window all see the change.
func openEngine(t *testing.T, budget int, tune func(*memory.Engine)) *memory.Engine {
	t.Helper()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: pgtest.Target(t, t.TempDir()), Budget: budget})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	if tune != nil {
		tune(eng)
		eng.Folder.Config = eng.Config
		if err := eng.Config.Validate(); err != nil {
			t.Fatalf("tuned config: %v", err)
		}
	}
	return eng
}

// feed appends the log's pending events and runs the scheduler, as an agent
// loop would after each iteration.
func feed(t *testing.T, eng *memory.Engine, l *deltaLog) (journal.Run, []string) {
	t.Helper()
	ctx := context.Background()
	if _, err := eng.Journal.Append(ctx, l.run, journal.FormatDelta, l.take()); err != nil {
		t.Fatalf("append: %v", err)
	}
	step, err := eng.Scheduler.Step(ctx, l.run)
	if err != nil {
		t.Fatalf("step: %v", err)
	}
	var folds []string
	for _, f := range step.Folds {
		folds = append(folds, fmt.Sprintf("%s %s", f.Trigger, f.Block))
	}
	run, err := eng.Journal.Run(ctx, l.run)
	if err != nil {
		t.Fatal(err)
	}
	return run, folds
}

// quietIteration adds a small successful read, so that iterations cost
// little and no pressure fold happens.
func (l *deltaLog) quietIteration(text string) {
	n := l.iter + 1
	l.think(text, okCall("read_file", map[string]any{"path": fmt.Sprintf("src/mod%d.py", n)}, fmt.Sprintf("def f%d():\n    return %d\n", n, n)))
}

// visible returns the visible blocks of a run.
func visible(t *testing.T, eng *memory.Engine, run string) []string {
	t.Helper()
	bs, err := eng.Fold.VisibleBlocks(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.ID)
	}
	return out
}
