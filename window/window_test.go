package window_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

var partitionOrder = []string{window.Static, window.LongTerm, window.ShortTerm, window.State, window.Working, window.Retrieved, window.Dynamic}

var sourceRE = regexp.MustCompile(`^(run\.system_prompt|system_prompt_file|run\.task|block:L[1-4]-\d+-\d+(\.\d+)?|iteration:\d+|notes:recent|notes:system|entity_state|entity_history|bookmarks|bookmark:\d+|run\.task\+milestone)$`)

func openWindowEngine(t *testing.T, budget int) *memory.Engine {
	t.Helper()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestWindowStructure replays a generated run at a budget where every kind
// of fold happens, and checks the window's layout at several points.
func TestWindowStructure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 8000
	eng := openWindowEngine(t, budget)
	gen, err := synth.New(synth.Config{Seed: 3, Iterations: 150, RunID: "layout", MaxOutputBytes: 4000})
	if err != nil {
		t.Fatal(err)
	}
	sawLong, sawShort := false, false
	for i := 1; ; i++ {
		evs, ok := gen.Next()
		if !ok {
			break
		}
		if _, err := eng.Journal.Append(ctx, "layout", journal.FormatDelta, evs); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Scheduler.Step(ctx, "layout"); err != nil {
			t.Fatal(err)
		}
		run, err := eng.Journal.Run(ctx, "layout")
		if err != nil {
			t.Fatal(err)
		}
		if i == 6 {
			if err := eng.Fold.AddBookmark(ctx, run, 4, "first test run"); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 != 0 {
			continue
		}
		cx, err := eng.Context(ctx, run, memory.ContextOptions{SystemPrompt: "You are a careful coding agent."})
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, ctx, eng, run, cx)
		sawLong = sawLong || len(cx.Partitions[1].Sections) > 0
		sawShort = sawShort || len(cx.Partitions[2].Sections) > 0
	}
	if !sawLong || !sawShort {
		t.Fatalf("the run never filled long-term (%v) and short-term (%v)", sawLong, sawShort)
	}
}

func checkLayout(t *testing.T, ctx context.Context, eng *memory.Engine, run journal.Run, cx *window.Context) {
	t.Helper()
	at := fmt.Sprintf("iteration %d", run.Iterations)
	var names []string
	for _, p := range cx.Partitions {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, partitionOrder) {
		t.Fatalf("%s: partitions %v", at, names)
	}
	// The current goal closes the window.
	last := -1
	for i, p := range cx.Partitions {
		if len(p.Sections) > 0 {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("%s: empty window", at)
	}
	lp := cx.Partitions[last]
	if lp.Name != window.Dynamic || lp.Sections[len(lp.Sections)-1].Name != "Current goal" {
		t.Errorf("%s: the window ends with %s / %q", at, lp.Name, lp.Sections[len(lp.Sections)-1].Name)
	}
	if !strings.HasPrefix(lp.Sections[len(lp.Sections)-1].Content, "Task: ") ||
		!strings.HasSuffix(cx.Markdown(), fmt.Sprintf("Next: iteration %d.\n", run.Iterations+1)) {
		t.Errorf("%s: the markdown does not end with the goal: %q", at, tail(cx.Markdown(), 120))
	}
	if msgs := cx.Messages; !strings.HasSuffix(msgs[len(msgs)-1].Text(), fmt.Sprintf("Next: iteration %d.", run.Iterations+1)) {
		t.Errorf("%s: the last message does not end with the goal", at)
	}
	if s := cx.Partitions[0].Sections; len(s) != 2 || s[0].Source != "system_prompt_file" || s[1].Source != "run.task" {
		t.Errorf("%s: static sections %+v", at, s)
	}
	if cx.Messages[0].Role != "system" || cx.Messages[0].Text() != "You are a careful coding agent." {
		t.Errorf("%s: first message %+v", at, cx.Messages[0])
	}

	visible, err := eng.Fold.VisibleBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	level := map[string]int{}
	for _, b := range visible {
		level[b.ID] = b.Level
	}
	prevIter := 0
	for _, p := range cx.Partitions {
		for _, s := range p.Sections {
			if !sourceRE.MatchString(s.Source) {
				t.Errorf("%s: %s section %q has source %q", at, p.Name, s.Name, s.Source)
			}
			switch id, isBlock := strings.CutPrefix(s.Source, "block:"); {
			case isBlock:
				lv, ok := level[id]
				if !ok {
					t.Errorf("%s: section of block %s, which is not visible", at, id)
				}
				if (p.Name == window.LongTerm) != (lv >= fold.L3) || (p.Name != window.LongTerm && p.Name != window.ShortTerm) {
					t.Errorf("%s: L%d block %s in %s", at, lv, id, p.Name)
				}
			case strings.HasPrefix(s.Source, "iteration:"):
				n, _ := strconv.Atoi(strings.TrimPrefix(s.Source, "iteration:"))
				if p.Name != window.Working || n <= prevIter {
					t.Errorf("%s: iteration %d in %s after %d", at, n, p.Name, prevIter)
				}
				prevIter = n
			}
		}
	}
	// The newest iteration shows in full, unless it declared a milestone
	// and its chapter now holds it.
	if prevIter != run.Iterations {
		if len(visible) == 0 {
			t.Fatalf("%s: iteration %d is neither in full nor in a block", at, run.Iterations)
		}
		newest := visible[len(visible)-1]
		if newest.Last != run.Iterations || newest.Trigger != fold.TriggerMilestone {
			t.Errorf("%s: the newest iteration shown in full is %d, and block %s (%s) ends at %d", at, prevIter, newest.ID, newest.Trigger, newest.Last)
		}
	}
	if r := cx.Partitions[5]; r.Name != window.Retrieved || r.Sections == nil || len(r.Sections) != 0 || r.Tokens != 0 {
		t.Errorf("%s: retrieved partition %+v", at, r)
	}
	if len(cx.Omitted) != 0 {
		t.Errorf("%s: omitted at the budget the scheduler ran with: %v", at, cx.Omitted)
	}
	if n := eng.Tokenizer.Count(cx.Markdown()); n > cx.Budget {
		t.Errorf("%s: markdown is %d tokens, budget %d", at, n, cx.Budget)
	}
}

// With nothing folded yet, the Long-term, Short-term and Retrieved shares
// are unused and flow to Working.
func TestUnusedShareFlowsToWorking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 32000
	eng := openWindowEngine(t, budget)
	evs, err := synth.Events(synth.Config{Seed: 5, Iterations: 3, RunID: "flow", MaxOutputBytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Journal.Append(ctx, "flow", journal.FormatDelta, evs); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scheduler.Step(ctx, "flow"); err != nil {
		t.Fatal(err)
	}
	run, err := eng.Journal.Run(ctx, "flow")
	if err != nil {
		t.Fatal(err)
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	budgets := map[string]int{}
	for _, p := range cx.Partitions {
		budgets[p.Name] = p.Budget
	}
	want := map[string]int{window.Static: 3200, window.LongTerm: 6400, window.ShortTerm: 6400, window.Retrieved: 3200, window.Dynamic: 3200}
	for name, b := range want {
		if budgets[name] != b {
			t.Errorf("%s budget %d, want %d", name, budgets[name], b)
		}
	}
	if len(cx.Partitions[1].Sections)+len(cx.Partitions[2].Sections) != 0 {
		t.Fatalf("blocks after 3 iterations: %+v", cx.Partitions[1:3])
	}
	// Working gets everything Static and Dynamic leave, less a small margin.
	used := cx.Partitions[0].Tokens + cx.Partitions[6].Tokens
	if w := budgets[window.Working]; w <= budget*3/10 || w < budget-used-budget/50 {
		t.Errorf("working budget %d of %d (static and dynamic use %d)", w, budget, used)
	}
	if got := len(cx.Partitions[4].Sections); got != 3 {
		t.Errorf("working shows %d iterations, want 3", got)
	}
}
