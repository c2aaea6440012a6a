package window_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// TestInvariantsOverLongRuns replays generated runs iteration by iteration,
// as an agent would produce them, runs the scheduler after each, renders the
// window, and checks every invariant after every iteration, with the
// recall triggers and an explicit recall every 50 iterations active:
//   - the Markdown and the messages stay within the budget, counted with the
//     real tokenizer over the whole output;
//   - no tool_call without its tool message, and no tool message without its
//     call;
//   - the same state renders byte-identical output;
//   - every iteration is covered by exactly one visible thing;
//   - a bookmarked iteration's text is in the window, or reported omitted;
//   - between iterations with no fold (nor a fade of expired recalls), the
//     previous Markdown up to Dynamic is a prefix of the new one, but for
//     recalls that left to make room (for the step's own, or for Working's
//     iterations) or changed form: it is kept up to the first of those;
//   - outside a question to memory, a recall made at a step shows in that
//     step's window, unless it alone is too long for the recalls' room.
func TestInvariantsOverLongRuns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		budget, iterations, maxOutput int
	}{
		{2000, 1000, 3000},
		{8000, 1000, 8000},
		{32000, 1000, 24000},
		{128000, 1000, 24000},
		// Outputs twenty times the budget: every recall and every
		// iteration in Working is cut to fit.
		{1000, 400, 20000},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("budget=%d", tc.budget), func(t *testing.T) {
			t.Parallel()
			checkRun(t, tc.budget, tc.iterations, tc.maxOutput)
		})
	}
}

func checkRun(t *testing.T, budget, iterations, maxOutput int) {
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	gen, err := synth.New(synth.Config{Seed: uint64(budget), Iterations: iterations, RunID: "prop", MaxOutputBytes: maxOutput})
	if err != nil {
		t.Fatal(err)
	}
	var prev *window.Context
	folds, recalls := 0, 0
	for i := 1; ; i++ {
		events, ok := gen.Next()
		if !ok {
			break
		}
		if _, err := eng.Journal.Append(ctx, "prop", journal.FormatDelta, events); err != nil {
			t.Fatal(err)
		}
		up, err := eng.Update(ctx, "prop")
		if err != nil {
			t.Fatalf("iteration %d: step: %v", i, err)
		}
		step := up.Fold
		folds += len(step.Folds)
		recalls += len(up.Recall.Recalls)
		run, err := eng.Journal.Run(ctx, "prop")
		if err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			// An explicit recall now and then, as an agent's recall_memory.
			hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{"config timeout"}, Limit: 3})
			if err != nil {
				t.Fatalf("iteration %d: retrieve: %v", i, err)
			}
			recalls += len(hits)
		}
		if i == 10 {
			if err := eng.Fold.AddBookmark(ctx, run, 7, "the first look at the code"); err != nil {
				t.Fatal(err)
			}
		}
		cx, err := eng.Context(ctx, run, memory.ContextOptions{})
		if err != nil {
			t.Fatalf("iteration %d: context: %v", i, err)
		}
		md := cx.Markdown()
		if n := eng.Tokenizer.Count(md); n > budget {
			t.Fatalf("iteration %d: markdown is %d tokens, budget %d (estimated %d)", i, n, budget, cx.Tokens)
		}
		if n := fold.MessagesTokens(eng.Tokenizer, cx.Messages); n > budget {
			t.Fatalf("iteration %d: messages are %d tokens, budget %d", i, n, budget)
		}
		checkPairs(t, i, cx.Messages)
		again, err := eng.Context(ctx, run, memory.ContextOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(cx.Messages)
		b, _ := json.Marshal(again.Messages)
		if again.Markdown() != md || string(a) != string(b) {
			t.Fatalf("iteration %d: the same state rendered differently", i)
		}
		checkCoverage(t, ctx, eng, run, i)
		if i >= 10 && !strings.Contains(md, "#### Iteration 7 (") && !omits(cx.Omitted, "bookmark:7") {
			t.Fatalf("iteration %d: bookmarked iteration 7 is neither in the window nor reported omitted", i)
		}
		// A window focused on a question to memory (an explicit recall at
		// this step) gives the summaries' room to Retrieved for that one
		// call: it and the one after it may begin differently.
		// Recalls that expired fade at a fold or, when none comes, every
		// FadeEvery iterations.
		fades := i%eng.Recall.Config().FadeEvery() == 0
		if len(step.Folds) == 0 && prev != nil && i != 10 && !cx.Focused && !prev.Focused && !fades {
			cut := keptPrefix(prev, cx)
			if !strings.HasPrefix(md, cut) {
				t.Fatalf("iteration %d: no fold, yet the window's prefix changed:\nprevious prefix ends %q\nnew window starts  %q",
					i, tail(cut, 300), tail(md[:min(len(md), len(cut))], 300))
			}
		}
		if !cx.Focused {
			for _, r := range up.Recall.Recalls {
				src := fmt.Sprintf("recall:%d", r.ID)
				how, ok := cx.Recalls[src]
				if r.Since == run.Iterations && (!ok || how == window.ShownOmitted && !omits(cx.Omitted, src+" not shown (too long") &&
					!omits(cx.Omitted, src+" not shown (the recalls made with it, and Working's")) {
					t.Fatalf("iteration %d: %s, made at this step, does not show: %v", i, src, cx.Omitted)
				}
			}
		}
		prev = cx
	}
	if folds == 0 && budget < 128000 {
		t.Fatalf("no fold in %d iterations at budget %d", iterations, budget)
	}
	if recalls == 0 && budget < 128000 {
		t.Fatalf("no recall in %d iterations at budget %d: the invariants were not tested with recalls active", iterations, budget)
	}
	t.Logf("budget %d: %d folds, %d recalls over %d iterations", budget, folds, recalls, iterations)
}

// keptPrefix is the part of the previous window the next must begin with
// when nothing folded: everything before the Retrieved (or, when empty,
// the Dynamic) partition. Outside a question to memory the recalls are in
// Working (the timeline), so that is everything before Dynamic, up to the
// first recall that left to make room or changed its form (the current
// step's, shown in Dynamic's slack at its own call).
func keptPrefix(prev, next *window.Context) string {
	md := prev.Markdown()
	cut := len(md)
	for _, h := range []string{"## Retrieved memory\n", "## Dynamic\n"} {
		if i := strings.Index(md, h); i >= 0 {
			cut = i
			break
		}
	}
	now := map[string]string{}
	for _, p := range next.Partitions {
		if p.Name == window.Retrieved {
			for _, s := range p.Sections {
				now[s.Source] = s.Content
			}
		}
	}
	for _, p := range prev.Partitions {
		if p.Name != window.Retrieved {
			continue
		}
		for _, s := range p.Sections {
			// The trace of recalls left out ends the timeline: each new
			// iteration comes before it.
			if c, ok := now[s.Source]; ok && c == s.Content && s.Source != "recall:omitted" {
				continue
			}
			if i := strings.Index(md, "### "+s.Name+"\n"); i >= 0 {
				cut = min(cut, i)
			}
		}
	}
	return md[:cut]
}

func checkPairs(t *testing.T, iter int, msgs []fold.Message) {
	t.Helper()
	open := map[string]bool{}
	for k, m := range msgs {
		switch m.Role {
		case "assistant":
			if len(open) > 0 {
				t.Fatalf("iteration %d: message %d: assistant message while tool calls %v have no result", iter, k, open)
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		case "tool":
			if !open[m.ToolCallID] {
				t.Fatalf("iteration %d: message %d: tool message %q answers no open call", iter, k, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		default:
			if len(open) > 0 {
				t.Fatalf("iteration %d: message %d (%s) splits tool calls %v from their results", iter, k, m.Role, open)
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("iteration %d: tool calls %v have no tool message", iter, open)
	}
}

func checkCoverage(t *testing.T, ctx context.Context, eng *memory.Engine, run journal.Run, iter int) {
	t.Helper()
	n, times, err := testrun.Miscovered(ctx, eng, run)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("iteration %d: iteration %d is covered %d times", iter, n, times)
	}
}

func omits(omitted []string, source string) bool {
	for _, o := range omitted {
		if strings.HasPrefix(o, source+" ") {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
