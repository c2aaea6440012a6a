package recall_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// TestSubtaskContextHoldsWhatTheSubtaskNeeds: a sub-agent's context holds
// the task, the subtask and the planted fact the subtask needs, under its
// budget, and none of the parent's summaries or Working iterations, which
// belong to other phases; building it records nothing.
func TestSubtaskContextHoldsWhatTheSubtaskNeeds(t *testing.T) {
	t.Parallel()
	const budget = 2500
	events := testrun.Planted(t, testrun.Options{Iterations: 400, Seed: 3}, []testrun.Plant{plantMetrics})
	eng := testrun.Feed(t, events, budget, 4000)
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	before, err := eng.Recall.History(ctx, run.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	const subtask = "find which port the metrics server listens on"
	cx, err := eng.SubtaskContext(ctx, run, subtask, "")
	if err != nil {
		t.Fatal(err)
	}
	md := cx.Markdown()
	if n := eng.Tokenizer.Count(md); n > budget || cx.Tokens > budget {
		t.Fatalf("the sub-agent's context has %d tokens (%d counted), budget %d", n, cx.Tokens, budget)
	}
	for _, want := range []string{"### Subtask\n" + subtask, "### Task\n", "METRICS_PORT=9464"} {
		if !strings.Contains(md, want) {
			t.Errorf("the sub-agent's context lacks %q:\n%s", want, md)
		}
	}
	for _, p := range cx.Partitions {
		for _, s := range p.Sections {
			switch p.Name {
			case window.LongTerm, window.ShortTerm, window.Working:
				t.Errorf("the sub-agent's context holds the parent's %s section %s", p.Name, s.Source)
			case window.Retrieved:
				if !strings.HasPrefix(s.Source, "subtask:") && s.Source != "recall:omitted" {
					t.Errorf("a retrieved section the subtask did not find: %s", s.Source)
				}
			}
		}
	}
	parent, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(parent.Markdown(), "METRICS_PORT=9464") {
		t.Error("set-up: the parent's window already shows the fact")
	}
	after, err := eng.Recall.History(ctx, run.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("building a sub-agent's context recorded %d recalls", len(after)-len(before))
	}
	if _, err := eng.SubtaskContext(ctx, run, "  ", ""); !errors.Is(err, recall.ErrEmptyQuery) {
		t.Errorf("an empty subtask: %v, want ErrEmptyQuery", err)
	}
}
