package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// longAgent is a transcript with the long system prompt and task real
// agents have (a tool manual, an issue text), and tool traffic after them.
type longAgent struct {
	system, task string
	steps        int
}

// prose returns about words words of varied text, so that it tokenizes
// like real documentation rather than one repeated token.
func prose(seed, words int) string {
	vocab := strings.Fields("the command opens a file at the given line and shows one hundred lines around it; " +
		"search_dir finds a term in every file under a directory, edit replaces a range of lines, submit ends the " +
		"session once the tests pass. Indentation matters: a wrong indent is rejected with a syntax error. " +
		"The issue reports that parsing a date with a zone offset drops the offset, so that conversions are off by hours")
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocab[(seed*31+i*7+i*i)%len(vocab)])
		if i%13 == 12 {
			fmt.Fprintf(&b, " (%d.%d)", seed, i)
		}
	}
	return b.String()
}

func newLongAgent(steps int) longAgent {
	return longAgent{system: prose(1, 1100), task: prose(2, 800), steps: steps}
}

// openAI renders the first n steps as OpenAI chat messages.
func (a longAgent) openAI(n int) []byte {
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	msgs := []map[string]any{{"role": "system", "content": a.system}, {"role": "user", "content": a.task}}
	for i := 1; i <= n; i++ {
		c := call{ID: fmt.Sprintf("call_%d", i), Type: "function"}
		c.Function.Name = "open"
		c.Function.Arguments = fmt.Sprintf(`{"path":"src/main/java/org/time/Parser%d.java","line":%d}`, i, 40+i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": fmt.Sprintf("Step %d: look at Parser%d.", i, i), "tool_calls": []call{c}},
			map[string]any{"role": "tool", "tool_call_id": c.ID, "content": prose(10+i, 90)})
	}
	b, _ := json.Marshal(msgs)
	return b
}

// delta renders the first n steps as a Delta journal, the system prompt in
// a SYSTEM_PROMPT event and the task in RUN_START.
func (a longAgent) delta(run string, n int) []byte {
	var b strings.Builder
	seq := 0
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(typ string, payload any) {
		seq++
		p, _ := json.Marshal(payload)
		e, _ := json.Marshal(journal.Event{Seq: int64(seq), Timestamp: at.Add(time.Duration(seq) * time.Second), Type: typ, Payload: p})
		b.Write(e)
		b.WriteByte('\n')
	}
	add(journal.TypeRunStart, map[string]any{"run_id": run, "task": a.task})
	add(journal.TypeSystemPrompt, map[string]any{"content": a.system})
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%d", i)
		add(journal.TypeThought, map[string]any{"content": fmt.Sprintf("Step %d: look at Parser%d.", i, i),
			"tool_calls": []map[string]any{{"id": id, "type": "function", "function": map[string]any{
				"name": "open", "arguments": fmt.Sprintf(`{"path":"src/main/java/org/time/Parser%d.java","line":%d}`, i, 40+i)}}}})
		add(journal.TypeActionRequest, map[string]any{"action_id": id, "tool_name": "open",
			"tool_args": map[string]any{"path": fmt.Sprintf("src/main/java/org/time/Parser%d.java", i), "line": 40 + i}})
		add(journal.TypeActionResult, map[string]any{"action_id": id, "status": journal.StatusSuccess,
			"observation_content": prose(10+i, 90)})
	}
	return []byte(b.String())
}

// TestNoFoldWhileTheHistoryFits replays agents with a long system prompt
// and task, step by step, through both import paths and at two budgets.
// While the whole history, rendered in full next to Static (cut to its
// cap) and Dynamic, fits the budget, the scheduler must fold nothing and
// the window must show every step in full; the first fold must come only
// once it no longer fits; and the window is never over the budget.
func TestNoFoldWhileTheHistoryFits(t *testing.T) {
	t.Parallel()
	agent := newLongAgent(40)
	for _, format := range []string{journal.FormatOpenAI, journal.FormatDelta} {
		for _, budget := range []int{4000, 8000} {
			t.Run(fmt.Sprintf("%s/%d", format, budget), func(t *testing.T) {
				t.Parallel()
				checkNoFoldWhileFits(t, agent, format, budget)
			})
		}
	}
}

func checkNoFoldWhileFits(t *testing.T, agent longAgent, format string, budget int) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(name string, budget int) *memory.Engine {
		eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, name, "memory.db"), Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	// small is under test; whole never folds, and shows what the history
	// is in full.
	small, whole := open("small", budget), open("whole", 1_000_000)
	file := filepath.Join(dir, "agent.json")
	folded := 0
	for n := 1; n <= agent.steps; n++ {
		data := agent.openAI(n)
		if format == journal.FormatDelta {
			data = agent.delta("agent", n)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := journal.ImportOptions{RunID: "agent", Format: format}
		_, step, err := small.Import(ctx, file, opts)
		if err != nil {
			t.Fatalf("step %d: import: %v", n, err)
		}
		if _, _, err := whole.Import(ctx, file, opts); err != nil {
			t.Fatal(err)
		}
		cx := contextOf(t, small)
		if cx.Tokens > budget {
			t.Fatalf("step %d: window %d tokens over the budget %d", n, cx.Tokens, budget)
		}
		if cx.StaticNeed <= budget/10 {
			t.Fatalf("static needs %d tokens: the test wants more than the static share", cx.StaticNeed)
		}
		// The whole history in full, beside Static and Dynamic as the
		// budget lays them out (once the run has folded, Dynamic's errors
		// and files are in the State partition).
		full := partitionTokens(cx, window.Static) + partitionTokens(cx, window.State) + partitionTokens(cx, window.Dynamic) +
			partitionTokens(contextOf(t, whole), window.Working)
		room := budget - budget/100
		if len(step.Fold.Folds) > 0 {
			if folded == 0 && full <= room {
				t.Fatalf("step %d: folded %+v while the whole history fits: %d of %d tokens", n, step.Fold.Folds, full, room)
			}
			folded += len(step.Fold.Folds)
		}
		if folded == 0 {
			if w := len(partitionOf(cx, window.Working).Sections); w != n || omitsIterations(cx) {
				t.Fatalf("step %d: nothing folded, yet Working shows %d of %d steps (omitted %v)", n, w, n, cx.Omitted)
			}
		}
	}
	if folded == 0 {
		cx := contextOf(t, small)
		t.Fatalf("%d steps never outgrew a %d-token window: the test did not reach a fold (window %d, static needs %d)", agent.steps, budget, cx.Tokens, cx.StaticNeed)
	}
}

// omitsIterations says whether the window left an iteration out or showed
// one shorter.
func omitsIterations(cx *window.Context) bool {
	for _, o := range cx.Omitted {
		if strings.HasPrefix(o, "iteration:") {
			return true
		}
	}
	return false
}

func contextOf(t *testing.T, eng *memory.Engine) *window.Context {
	t.Helper()
	ctx := context.Background()
	run, err := eng.ResolveRun(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cx
}

func partitionOf(cx *window.Context, name string) window.Partition {
	for _, p := range cx.Partitions {
		if p.Name == name {
			return p
		}
	}
	return window.Partition{}
}

func partitionTokens(cx *window.Context, name string) int { return partitionOf(cx, name).Tokens }
