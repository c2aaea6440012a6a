package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/internal/window"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// TestRecallFillsTheRoom asks with no limit: the recall takes many hits,
// more than the Retrieved share holds, up to the room the window has; the
// best comes back with the iterations around it; when the hits want more
// than the window leaves, a pressure fold of the oldest Working iterations
// makes the room, Working keeps at least half its share, and the window
// stays within its budget.
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
		if h.Block != nil || h.Iterations != h.Matched {
			t.Errorf("hit %v past the focus is a block or has context: %+v", h.Iterations, h)
		}
	}
	_, cx := retrievedText(t, eng)
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	var ret window.Partition
	for _, p := range cx.Partitions {
		if p.Name == window.Retrieved {
			ret = p
		}
	}
	if ret.Tokens <= eng.Config.RetrievedBudget() {
		t.Errorf("retrieved uses %d tokens, no more than its share %d", ret.Tokens, eng.Config.RetrievedBudget())
	}
	if !strings.Contains(cx.Markdown(), "METRICS_PORT=9464") {
		t.Error("the best hit's fact is not in the window")
	}
	if room := before.RecallRoom(eng.Config); ret.Tokens > room+64 {
		// The hits wanted more than the window left: room was made by a fold.
		if tot, err := eng.Fold.Totals(ctx, run.ID); err != nil || tot.Folds[fold.TriggerPressure] == foldsBefore {
			t.Errorf("retrieved takes %d tokens, more than the %d the window left, and nothing was folded", ret.Tokens, room)
		}
	}
	keptWorking(t, eng.Config, before, cx)
}

// TestRecallFillMakesRoomByFolding holds a conversation of short turns,
// so that Working is past its share and the window leaves a recall little
// room: a recall of many matches folds the oldest Working iterations
// (trigger pressure) rather than showing fewer of them.
func TestRecallFillMakesRoomByFolding(t *testing.T) {
	t.Parallel()
	const budget = 3000
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var events []journal.Event
	add := func(typ string, payload any) {
		raw, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, journal.Event{Seq: int64(len(events) + 1), Timestamp: at.Add(time.Duration(len(events)) * time.Minute), Type: typ, Payload: raw})
	}
	add(journal.TypeRunStart, journal.RunStartPayload{RunID: testrun.RunID, Task: "Talk about the harbour"})
	for i := 1; i <= 345; i++ {
		line := fmt.Sprintf("Turn %d: the weather at the harbour was calm and the boats stayed in.", i)
		if i%4 == 0 {
			line = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d.", i, i)
		}
		add(journal.TypeThought, journal.ThoughtPayload{Content: line})
	}
	eng := testrun.Feed(t, events, budget, 1000)
	before, pressure, hits := fillRecall(t, eng, "lighthouse keeper lamp check")
	ctx := context.Background()
	run, _ := eng.Journal.Run(ctx, testrun.RunID)
	tot, err := eng.Fold.Totals(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Folds[fold.TriggerPressure] <= pressure {
		t.Errorf("pressure folds %d before the recall and %d after: no room was made (room %d, %d hits)",
			pressure, tot.Folds[fold.TriggerPressure], before.RecallRoom(eng.Config), len(hits))
	}
	got, cx := retrievedText(t, eng)
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	if shown := strings.Count(got, "lighthouse keeper"); shown <= 10 {
		t.Errorf("the window shows %d of the keeper's turns after the recall; room was made for more:\n%s", shown, got)
	}
	keptWorking(t, eng.Config, before, cx)
}

// keptWorking checks that a recall left Working at least half its share,
// or what it had if that was less, give or take one fold's chunk.
func keptWorking(t *testing.T, cfg fold.Config, before, after *window.Context) {
	t.Helper()
	tokens := func(cx *window.Context) int {
		for _, p := range cx.Partitions {
			if p.Name == window.Working {
				return p.Tokens
			}
		}
		return 0
	}
	floor := min(tokens(before), cfg.WorkingBudget()/2)
	slack := tokens(before) * cfg.Chunk / max(1, len(before.Partitions[3].Sections))
	if got := tokens(after); got < floor-slack {
		t.Errorf("working kept %d tokens, want at least %d (half its share, or what it had, less one chunk of %d)", got, floor, slack)
	}
}

// fillRecall recalls words with no limit, and returns the context and the
// count of pressure folds from before it, and its hits.
func fillRecall(t *testing.T, eng *engine.Engine, words string) (*window.Context, int, []engine.Retrieved) {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	before, err := eng.Context(ctx, run, engine.ContextOptions{})
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
