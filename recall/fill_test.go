package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// TestRecallFillsTheRoom asks with no limit: the recall takes many hits,
// more than the Retrieved share holds, up to the room a window focused on
// the question has; the best comes back with the iterations around it;
// the room comes from the summaries and the older Working iterations at
// render time, not from a fold, and the window stays within its budget.
func TestRecallFillsTheRoom(t *testing.T) {
	t.Parallel()
	const budget = 32000
	events := testrun.Planted(t, testrun.Options{Iterations: 400, Seed: 3}, []testrun.Plant{plantMetrics})
	eng := testrun.Feed(t, events, budget, 4000)
	before, foldsBefore, hits := fillRecall(t, eng, "metrics server port config")
	ctx := context.Background()
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	if len(hits) <= 5 {
		t.Fatalf("a recall with no limit took %d hits; the window has room for more", len(hits))
	}
	if hits[0].Matched != [2]int{40, 40} || hits[0].Iterations == hits[0].Matched {
		t.Errorf("the best hit is %v (matched %v), want iteration 40 with context", hits[0].Iterations, hits[0].Matched)
	}
	for _, h := range hits[recall.DefaultConfig().Focus:] {
		if h.Block != nil {
			t.Errorf("hit %v past the focus is a block: %+v", h.Iterations, h)
		}
	}
	_, cx := retrievedText(t, eng)
	if !cx.Focused {
		t.Fatal("the window after a question to memory is not focused on it")
	}
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	ret := partition(cx, window.Retrieved)
	if ret.Tokens <= eng.Config.RetrievedBudget() {
		t.Errorf("retrieved uses %d tokens, no more than its share %d", ret.Tokens, eng.Config.RetrievedBudget())
	}
	if ret.Tokens > before.FocusRoom()+64 {
		t.Errorf("retrieved uses %d tokens, more than the focus room %d", ret.Tokens, before.FocusRoom())
	}
	if !strings.Contains(cx.Markdown(), "METRICS_PORT=9464") {
		t.Error("the best hit's fact is not in the window")
	}
	if tot, err := eng.Fold.Totals(ctx, run.ID); err != nil || tot.Folds[fold.TriggerPressure] != foldsBefore {
		t.Errorf("the recall folded (pressure folds %d before, %v after): its room comes from the focused window", foldsBefore, tot.Folds)
	}
	keptNewest(t, run, cx)
}

// TestFocusedWindowShowsTheTurnsTheQuestionMatched holds a conversation
// of short turns, whose newest turns show in full: a question to memory
// brings back every matching turn it has room for, those Working showed
// included, and Working leaves out what Retrieved shows rather than
// showing it twice. The next step's window is no longer focused.
func TestFocusedWindowShowsTheTurnsTheQuestionMatched(t *testing.T) {
	t.Parallel()
	const budget = 3000
	var lines []string
	for i := 1; i <= 346; i++ {
		line := fmt.Sprintf("Turn %d: the weather at the harbour was calm and the boats stayed in.", i)
		if i%4 == 0 || i == 343 {
			line = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d.", i, i)
		}
		lines = append(lines, line)
	}
	lines[345] = "Turn 346: the tide turned."
	// Turn 346 is the step after the question.
	events := testrun.Conversation(t, testrun.RunID, "Talk about the harbour", lines)
	next := events[len(events)-1:]
	events = events[:len(events)-1]
	eng := testrun.Feed(t, events, budget, 1000)
	ctx := context.Background()
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	before, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(partitionText(before, window.Working), "Turn 343: the lighthouse keeper") {
		t.Fatal("set-up: turn 343 is not in Working before the question")
	}
	_, _, hits := fillRecall(t, eng, "lighthouse keeper lamp check")
	visible := false
	for _, h := range hits {
		visible = visible || h.Iterations[0] <= 343 && 343 <= h.Iterations[1] && h.Visible
	}
	if !visible {
		t.Errorf("turn 343, shown in full, is not among the %d hits, marked visible", len(hits))
	}
	got, cx := retrievedText(t, eng)
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	if shown := strings.Count(got, "lighthouse keeper"); shown <= 20 {
		t.Errorf("the window shows %d of the keeper's turns after the question; the focused window has room for more:\n%s", shown, got)
	}
	if n := strings.Count(cx.Markdown(), "Turn 343: the lighthouse keeper"); n != 1 {
		t.Errorf("turn 343 shows %d times in the focused window, want once", n)
	}
	keptNewest(t, run, cx)

	// The next step: the recall stays, the window is as usual again.
	testrun.FeedMore(t, eng, next, 1)
	_, after := retrievedText(t, eng)
	if after.Focused {
		t.Error("the step after the question still has a focused window")
	}
	if n := strings.Count(after.Markdown(), "Turn 343: the lighthouse keeper"); n > 1 {
		t.Errorf("turn 343 shows %d times in the next window", n)
	}
}

// keptNewest checks that a focused window still shows the current step.
func keptNewest(t *testing.T, run journal.Run, cx *window.Context) {
	t.Helper()
	w := partition(cx, window.Working)
	want := fmt.Sprintf("iteration:%d", run.Iterations)
	if len(w.Sections) == 0 || w.Sections[len(w.Sections)-1].Source != want {
		t.Errorf("Working does not end with the current step (%s): %+v", want, w.Sections)
	}
}

// partition returns the named partition of cx.
func partition(cx *window.Context, name string) window.Partition {
	for _, p := range cx.Partitions {
		if p.Name == name {
			return p
		}
	}
	return window.Partition{}
}

// partitionText joins the named partition's sections.
func partitionText(cx *window.Context, name string) string {
	var b strings.Builder
	for _, s := range partition(cx, name).Sections {
		b.WriteString(s.Content + "\n")
	}
	return b.String()
}

// fillRecall recalls words with no limit, and returns the context and the
// count of pressure folds from before it, and its hits.
func fillRecall(t *testing.T, eng *memory.Engine, words string) (*window.Context, int, []memory.Retrieved) {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	before, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tot, err := eng.Fold.Totals(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{words}})
	if err != nil {
		t.Fatal(err)
	}
	return before, tot.Folds[fold.TriggerPressure], hits
}

// TestRecalledTurnsShowOneLineEach: a conversation's turns are iterations
// that only speak, and a recall brings back dozens of them. Each shows as
// one line headed by its number ("[iter 42] thought: …"), in full, not
// under an iteration heading of its own, alone or with the turns around
// it; only the first hit has a section heading (naming the question): the
// others are set apart by a blank line, their lines naming them. The
// window stays within its budget.
func TestRecalledTurnsShowOneLineEach(t *testing.T) {
	t.Parallel()
	const budget = 3000
	lines := harbour(300, 7)
	eng := testrun.Feed(t, testrun.Conversation(t, testrun.RunID, "Talk about the harbour", lines), budget, 1000)
	_, _, hits := fillRecall(t, eng, "lighthouse keeper lamp check")
	got, cx := retrievedText(t, eng)
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	if strings.Contains(got, "#### Iteration") {
		t.Errorf("recalled turns show under iteration headings:\n%s", got)
	}
	ranges, lone := 0, 0
	for _, h := range hits {
		if h.Iterations[0] == h.Iterations[1] {
			lone++
		} else {
			ranges++
		}
		for n := h.Iterations[0]; n <= h.Iterations[1]; n++ {
			want := fmt.Sprintf("[iter %d] thought: %s\n", n, lines[n-1])
			if !strings.Contains(got, want) {
				t.Errorf("hit %v does not show iteration %d as the line %q", h.Iterations, n, want)
			}
		}
	}
	if ranges == 0 || lone == 0 {
		t.Fatalf("set-up: %d hits came back with the turns around them and %d alone, want some of each", ranges, lone)
	}
	md := cx.Markdown()
	at := strings.Index(md, "## Retrieved memory")
	if at < 0 {
		t.Fatalf("no Retrieved partition:\n%s", md)
	}
	part, _, _ := strings.Cut(md[at+len("## Retrieved memory"):], "\n## ")
	if n := strings.Count(part, "\n### "); n != 1 || !strings.Contains(part, "(recalled for \"lighthouse keeper lamp check\")") {
		t.Errorf("the Retrieved partition has %d section headings, want one, the first hit's, naming the question:\n%s", n, part)
	}
	if shown := strings.Count(part, "\n\n[iter "); shown < len(hits)-1 {
		t.Errorf("%d hits start after a blank line, want all but the first (%d hits):\n%s", shown, len(hits), part)
	}
}

// TestAKeptAroundServesTheNextRound asks a fill twice over a LoCoMo
// conversation, as a fill whose room was left asks again for more hits:
// with the first round's reads of the iterations around its hits kept
// (Query.Around), the hits are those of a recall that reads them afresh,
// range for range, the exchanges (a question before a hit, the answer
// after one) included.
func TestAKeptAroundServesTheNextRound(t *testing.T) {
	t.Parallel()
	convs, eng := locomoDev(t)
	ctx := context.Background()
	run := importConversation(t, eng, convs[0])
	hits := func(q recall.Query) []recall.Recall {
		t.Helper()
		var out []recall.Recall
		if err := eng.Recall.Each(ctx, run, q, func(h recall.Recall) (bool, error) {
			out = append(out, h)
			return true, nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	q := recall.Query{Keywords: []string{"What did they say about the support group and the painting?"}, Fill: true, DryRun: true, Limit: 20, Around: new(recall.Around)}
	hits(q)
	q.Limit = 200
	kept := hits(q)
	q.Around = nil
	fresh := hits(q)
	if fmt.Sprint(kept) != fmt.Sprint(fresh) {
		t.Fatalf("with the first round's reads kept the hits are\n%v\nread afresh\n%v", kept, fresh)
	}
	widened := 0
	for _, h := range fresh[recall.DefaultConfig().Focus:] {
		if h.First < h.Matched[0] || h.Last > h.Matched[1] {
			widened++
		}
	}
	if len(fresh) < 50 || widened == 0 {
		t.Fatalf("%d hits, %d past the focus with a turn of their exchange: the test needs many hits, some widened", len(fresh), widened)
	}
}
