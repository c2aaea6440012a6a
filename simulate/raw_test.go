package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

// talkingJournal is a run of n iterations with a user message before every
// fifth, and a long tool output (a log of outputBytes) every tenth.
func talkingJournal(t *testing.T, n, outputBytes int) string {
	t.Helper()
	var b strings.Builder
	seq := 0
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	add := func(typ string, payload any) {
		seq++
		raw, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		line, err := json.Marshal(map[string]any{"seq": seq, "timestamp": at.Add(time.Duration(seq) * time.Second).Format(time.RFC3339Nano), "type": typ, "payload": json.RawMessage(raw)})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	add(journal.TypeRunStart, map[string]any{"run_id": "talk", "task": "keep the build green"})
	for i := 1; i <= n; i++ {
		if i%5 == 0 {
			add(journal.TypeUserMessage, map[string]any{"content": fmt.Sprintf("how is step %d going?", i)})
		}
		id := fmt.Sprintf("c%d", i)
		add(journal.TypeThought, map[string]any{"content": fmt.Sprintf("Step %d: run the tests.", i),
			"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "run_shell", "arguments": `{"command":"make test"}`}}}})
		add(journal.TypeActionRequest, map[string]any{"action_id": id, "tool_name": "run_shell", "tool_args": map[string]any{"command": "make test"}})
		out := fmt.Sprintf("ok: %d tests passed", i)
		if i%10 == 0 {
			var log strings.Builder
			for j := 0; log.Len() < outputBytes; j++ {
				fmt.Fprintf(&log, "line %d of the build log: compiled module_%d in %d ms\n", j, j%97, j%13)
			}
			out = log.String()
		}
		add(journal.TypeActionResult, map[string]any{"action_id": id, "status": "SUCCESS", "observation_content": out})
	}
	return writeFile(t, "journal.jsonl", b.String())
}

// TestReplayFollowsTheRunsIterations: user messages open iterations, and
// the replay's iteration numbers (what simulate prints, as text and JSON)
// are the run's, each once.
func TestReplayFollowsTheRunsIterations(t *testing.T) {
	t.Parallel()
	src, err := Load(talkingJournal(t, 30, 100), "")
	if err != nil {
		t.Fatal(err)
	}
	rep := replay(t, src)
	var stored int
	for i, it := range rep.Series {
		if it.Iteration != i+1 {
			t.Fatalf("step %d is labelled iteration %d", i+1, it.Iteration)
		}
		stored = it.Iteration
	}
	if stored != 30 || len(src.Chunks) != 30 {
		t.Fatalf("%d chunks, last iteration %d, want 30", len(src.Chunks), stored)
	}
}

// TestRawHistoryIsRaw: raw history counts every tool output whole, and the
// replay's figure is the one show gives for the same journal.
func TestRawHistoryIsRaw(t *testing.T) {
	t.Parallel()
	src, err := Load(talkingJournal(t, 30, 400_000), "")
	if err != nil {
		t.Fatal(err)
	}
	eng, rep := replayOn(t, src)
	tot, err := eng.Fold.Totals(context.Background(), "talk")
	if err != nil {
		t.Fatal(err)
	}
	if rep.RawTokens != tot.RawTokens {
		t.Errorf("simulate counts %d raw tokens, show %d", rep.RawTokens, tot.RawTokens)
	}
	// Three logs of 400,000 bytes: well over 100,000 tokens of raw history,
	// though each shows cut to 2,000 tokens.
	if rep.RawTokens < 100_000 {
		t.Errorf("raw history %d tokens: the long outputs were counted cut", rep.RawTokens)
	}
	if rep.FinalSavings < 0.9 {
		t.Errorf("the last call is %.0f%% smaller than the raw history, want over 90%%", 100*rep.FinalSavings)
	}
}

func replay(t *testing.T, src *Source) *Report {
	t.Helper()
	_, rep := replayOn(t, src)
	return rep
}

func replayOn(t *testing.T, src *Source) (*memory.Engine, *Report) {
	t.Helper()
	dir := t.TempDir()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	rep, err := Run(context.Background(), eng, src, Options{Workspace: dir, KeepRecent: 3})
	if err != nil {
		t.Fatal(err)
	}
	return eng, rep
}
