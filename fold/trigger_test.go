package fold_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

// invoices is a tool output of about 14 tokens per line.
func invoices(batch, lines int) string {
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "record %d.%d: customer=%d total=%d.%02d currency=EUR\n", batch, i, batch*100+i, batch*i, i)
	}
	return b.String()
}

func workingNumbers(t *testing.T, eng *memory.Engine, run string) []int {
	t.Helper()
	notes, err := eng.Fold.WorkingNotes(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, n := range notes {
		out = append(out, n.Number)
	}
	return out
}

func span(a, b int) []int {
	var out []int
	for n := a; n <= b; n++ {
		out = append(out, n)
	}
	return out
}

// Pressure: with a small budget and large outputs, the scheduler folds the
// oldest iterations whenever usage passes PressureHigh, down to PressureLow,
// so that no step ends over PressureHigh.
func TestPressureTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 2000, nil)
	cfg := eng.Config
	l := newDeltaLog("pressure", "Summarise the invoices.")
	pressure := 0
	for i := 1; i <= 30; i++ {
		l.think(fmt.Sprintf("Read invoice batch %d.", i), okCall("read_file", map[string]any{"path": fmt.Sprintf("data/batch%d.csv", i)}, invoices(i, 12)))
		if _, err := eng.Journal.Append(ctx, l.run, journal.FormatDelta, l.take()); err != nil {
			t.Fatal(err)
		}
		step, err := eng.Scheduler.Step(ctx, l.run)
		if err != nil {
			t.Fatal(err)
		}
		folded := false
		for _, f := range step.Folds {
			if f.Trigger == fold.TriggerPressure {
				pressure++
				folded = true
				if f.At != i || f.First < 1 || f.Last >= i {
					t.Errorf("iteration %d: pressure fold %+v", i, f)
				}
			}
		}
		if step.Usage > cfg.PressureHigh {
			t.Errorf("iteration %d: usage %.2f after the step, over PressureHigh %.2f (folds %+v)", i, step.Usage, cfg.PressureHigh, step.Folds)
		}
		w := workingNumbers(t, eng, l.run)
		// A pressure fold goes down to PressureLow, unless only the newest
		// KeepRecent iterations are left to fold.
		if folded && step.Usage > cfg.PressureLow && len(w) > cfg.KeepRecent {
			t.Errorf("iteration %d: a pressure fold left usage at %.2f, over PressureLow %.2f, with %d iterations in full", i, step.Usage, cfg.PressureLow, len(w))
		}
		if len(w) == 0 || w[len(w)-1] != i {
			t.Fatalf("iteration %d: the newest iteration is not in full: working %v", i, w)
		}
	}
	if pressure < 3 {
		t.Fatalf("%d pressure folds in 30 iterations of ~170 tokens at budget 2000", pressure)
	}
	blocks, err := eng.Fold.AllBlocks(ctx, l.run)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range blocks {
		if b.Trigger == fold.TriggerPressure {
			n++
		}
	}
	if n != pressure {
		t.Errorf("%d blocks record the pressure trigger, the steps reported %d", n, pressure)
	}
}

// Interval: while the run's whole history fits its window, no interval
// comes: folding then would only empty the window.
func TestIntervalWaitsWhileHistoryFits(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, 128000, func(e *memory.Engine) { e.Config.IntervalCalm, e.Config.IntervalBusy = 5, 5 })
	l := newDeltaLog("interval", "Read the modules.")
	for i := 1; i <= 40; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
		if _, folds := feed(t, eng, l); len(folds) > 0 {
			t.Fatalf("iteration %d: folds %v with the whole history in the window", i, folds)
		}
	}
}

// Interval: once the history has outgrown the window, an interval fold
// comes every IntervalBusy iterations while usage is over PressureLow, and
// folds the oldest iterations down to it, never further, leaving the newest
// KeepRecent iterations in full.
func TestIntervalTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 2000, func(e *memory.Engine) { e.Config.IntervalBusy, e.Config.IntervalBusyAt = 4, 0.1 })
	cfg := eng.Config
	l := newDeltaLog("interval", "Summarise the invoices.")
	intervals, pressured := 0, false
	for i := 1; i <= 40; i++ {
		l.think(fmt.Sprintf("Read invoice batch %d.", i), okCall("read_file", map[string]any{"path": fmt.Sprintf("data/batch%d.csv", i)}, invoices(i, 3)))
		if _, err := eng.Journal.Append(ctx, l.run, journal.FormatDelta, l.take()); err != nil {
			t.Fatal(err)
		}
		before := workingNumbers(t, eng, l.run)
		step, err := eng.Scheduler.Step(ctx, l.run)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range step.Folds {
			switch f.Trigger {
			case fold.TriggerPressure:
				pressured = true
			case fold.TriggerInterval:
				intervals++
				if !pressured {
					t.Fatalf("iteration %d: interval fold %+v before the history outgrew the window", i, f)
				}
				if f.Last > i-cfg.KeepRecent {
					t.Errorf("iteration %d: interval fold %+v reaches into the newest %d iterations", i, f, cfg.KeepRecent)
				}
			}
		}
		if n := len(step.Folds); n > 0 && step.Folds[n-1].Trigger == fold.TriggerInterval {
			// Folding one iteration fewer would have left usage over Low:
			// the fold went no further than needed.
			after := workingNumbers(t, eng, l.run)
			if step.Usage > cfg.PressureLow && len(after) > cfg.KeepRecent || len(after) < len(before)-cfg.Chunk {
				t.Errorf("iteration %d: interval fold left usage %.2f (low %.2f), working %v → %v", i, step.Usage, cfg.PressureLow, before, after)
			}
		}
	}
	if intervals == 0 {
		t.Fatal("no interval fold in 40 iterations after the history outgrew a 2,000-token window")
	}
}

// TestARunThatCallsToolsHoldsRoomForItsRecalls: once a run has folded,
// the scheduler holds room for the recalls made after it runs. A run whose
// steps call tools recalls on its own (implicit and error-driven recall
// follow its calls), and is held half the recalls' reach, so that the
// output of a step a later call returns to has room to show whole between
// folds; a conversation, whose recalls come from questions to memory (a
// focused window), is held the Retrieved share, as before. A run that
// stops calling tools goes back to the share once its newest fifty steps
// call none.
func TestARunThatCallsToolsHoldsRoomForItsRecalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 4000
	eng := openEngine(t, budget, nil)
	cfg := eng.Config
	share, hold := cfg.RetrievedBudget(), cfg.RecallHold(true)
	if hold <= share || cfg.RecallHold(false) != share {
		t.Fatalf("set-up: at %d tokens a run that calls tools should be held more than the Retrieved share (%d), a conversation the share: %d and %d",
			budget, share, hold, cfg.RecallHold(false))
	}
	held := func(l *deltaLog) int {
		t.Helper()
		if _, err := eng.Journal.Append(ctx, l.run, journal.FormatDelta, l.take()); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Scheduler.Step(ctx, l.run); err != nil {
			t.Fatal(err)
		}
		run, err := eng.Journal.Run(ctx, l.run)
		if err != nil {
			t.Fatal(err)
		}
		n, err := fold.HeldForRecalls(ctx, eng.Scheduler, run)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	agent, talk := newDeltaLog("agent", "Summarise the invoices."), newDeltaLog("talk", "Chat about the invoices.")
	var agentHeld, talkHeld int
	for i := 1; i <= 40; i++ {
		agent.think(fmt.Sprintf("Read invoice batch %d.", i), okCall("read_file", map[string]any{"path": fmt.Sprintf("data/batch%d.csv", i)}, invoices(i, 12)))
		agentHeld = held(agent)
		talk.think(fmt.Sprintf("Batch %d reads: %s", i, invoices(i, 12)))
		talkHeld = held(talk)
	}
	if agentHeld != hold {
		t.Errorf("a folded run that calls tools is held %d tokens for its recalls, want %d (half their reach; the share is %d)", agentHeld, hold, share)
	}
	if talkHeld != share {
		t.Errorf("a folded conversation is held %d tokens for its recalls, want the Retrieved share %d", talkHeld, share)
	}
	for i := 41; i <= 100; i++ {
		agent.think(fmt.Sprintf("Note %d: %s", i, invoices(i, 2)))
		agentHeld = held(agent)
	}
	if agentHeld != share {
		t.Errorf("a run whose last %d steps called no tool is held %d tokens, want the Retrieved share %d", 60, agentHeld, share)
	}
}
