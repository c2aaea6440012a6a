package fold_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

// Cascade: many small pressure folds overflow Short-term, whose oldest
// blocks merge into an L3 chapter; the chapters then overflow Long-term,
// whose oldest merge into an L4 phase.
func TestCascadeTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 2000, func(e *memory.Engine) {
		e.Config.IntervalCalm, e.Config.KeepRecent, e.Config.Chunk = 2, 1, 2
	})
	cfg := eng.Config
	l := newDeltaLog("cascade", "Port the modules.")
	var l3, l4 *fold.Block
	for i := 1; i <= 80 && l4 == nil; i++ {
		l.think(fmt.Sprintf("Port module %d to the new API, keeping its behaviour.", i),
			okCall("write_file", map[string]any{"path": fmt.Sprintf("src/mod%d.py", i), "content": "x = 1\n"}, "ok"))
		if _, err := eng.Journal.Append(ctx, l.run, journal.FormatDelta, l.take()); err != nil {
			t.Fatal(err)
		}
		step, err := eng.Scheduler.Step(ctx, l.run)
		if err != nil {
			t.Fatal(err)
		}
		cascaded := false
		for _, f := range step.Folds {
			if f.Trigger != fold.TriggerCascade {
				continue
			}
			cascaded = true
			b := blockOf(t, eng.Fold, l.run, f.Block)
			if b.Trigger != fold.TriggerCascade {
				t.Errorf("block %s records trigger %q", b.ID, b.Trigger)
			}
			if b.Level == fold.L3 && l3 == nil {
				l3 = b
			}
			if b.Level == fold.L4 && l4 == nil {
				l4 = b
			}
		}
		if cascaded {
			short, long := partitionTokens(t, eng, l.run)
			if short > cfg.ShortTermBudget() || long > cfg.LongTermBudget() {
				t.Errorf("iteration %d: after a cascade short-term holds %d tokens (share %d), long-term %d (share %d)",
					i, short, cfg.ShortTermBudget(), long, cfg.LongTermBudget())
			}
		}
	}
	if l3 == nil || l4 == nil {
		t.Fatalf("no L3 (%v) or no L4 (%v) cascade in 80 iterations", l3 != nil, l4 != nil)
	}
	checkAbsorbed(t, eng, l3, fold.L1, fold.L2)
	checkAbsorbed(t, eng, l4, fold.L3, fold.L4)
	if l3.First != 1 || l4.First != 1 {
		t.Errorf("cascades should take the oldest blocks: L3 %s, L4 %s", l3.Range(), l4.Range())
	}
}

// partitionTokens sums the visible blocks of Short-term and Long-term.
func partitionTokens(t *testing.T, eng *memory.Engine, run string) (short, long int) {
	t.Helper()
	bs, err := eng.Fold.VisibleBlocks(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Level >= fold.L3 {
			long += b.Tokens
		} else {
			short += b.Tokens
		}
	}
	return short, long
}

// checkAbsorbed checks that parent's children are at least two hidden
// blocks of a level that tile its range exactly.
func checkAbsorbed(t *testing.T, eng *memory.Engine, parent *fold.Block, minLevel, maxLevel int) {
	t.Helper()
	all, err := eng.Fold.AllBlocks(context.Background(), parent.Run)
	if err != nil {
		t.Fatal(err)
	}
	next, n := parent.First, 0
	for _, b := range all {
		if b.Parent != parent.ID {
			continue
		}
		n++
		if b.Visible || b.Level < minLevel || b.Level > maxLevel {
			t.Errorf("child %s of %s: level %d visible %v", b.ID, parent.ID, b.Level, b.Visible)
		}
		if b.First != next {
			t.Errorf("child %s of %s starts at %d, want %d", b.ID, parent.ID, b.First, next)
		}
		next = b.Last + 1
	}
	if n < 2 || next != parent.Last+1 {
		t.Errorf("%s absorbed %d blocks covering up to %d, want >= 2 covering %s", parent.ID, n, next-1, parent.Range())
	}
}
