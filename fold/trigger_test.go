package fold_test

import (
	"context"
	"fmt"
	"reflect"
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
		if folded && step.Usage > cfg.PressureLow {
			t.Errorf("iteration %d: a pressure fold left usage at %.2f, over PressureLow %.2f", i, step.Usage, cfg.PressureLow)
		}
		if w := workingNumbers(t, eng, l.run); len(w) == 0 || w[len(w)-1] != i {
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

// Interval: with room to spare, a fold still happens every IntervalCalm
// iterations, and leaves the newest KeepRecent iterations in full.
func TestIntervalTrigger(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, 128000, func(e *memory.Engine) { e.Config.IntervalCalm = 10 })
	keep := eng.Config.KeepRecent
	l := newDeltaLog("interval", "Read the modules.")
	var events []string
	for i := 1; i <= 10+keep; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
		_, folds := feed(t, eng, l)
		events = append(events, folds...)
		if i == 9 && len(events) > 0 {
			t.Fatalf("fold before the interval: %v", events)
		}
	}
	if want := []string{"interval L2-1-5"}; !reflect.DeepEqual(events, want) {
		t.Fatalf("folds after %d iterations: %v, want %v", 10+keep, events, want)
	}
	b, err := eng.Fold.Block(context.Background(), l.run, "L2-1-5")
	if err != nil {
		t.Fatal(err)
	}
	if b.Trigger != fold.TriggerInterval || b.First != 1 || b.Last != 10-keep || !b.Visible || b.CreatedIter != 10 {
		t.Errorf("interval block: %+v", b)
	}
	if got := workingNumbers(t, eng, l.run); !reflect.DeepEqual(got, span(10-keep+1, 10+keep)) {
		t.Errorf("working after %d iterations: %v", 10+keep, got)
	}
	// The next interval, ten iterations later, folds what has aged since.
	for i := 10 + keep + 1; i <= 20; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
		_, folds := feed(t, eng, l)
		events = append(events, folds...)
	}
	if want := []string{"interval L2-1-5", "interval L2-6-15"}; !reflect.DeepEqual(events, want) {
		t.Fatalf("folds after 20 iterations: %v, want %v", events, want)
	}
	if got := workingNumbers(t, eng, l.run); !reflect.DeepEqual(got, span(20-keep+1, 20)) {
		t.Errorf("working after 20 iterations: %v", got)
	}
}
