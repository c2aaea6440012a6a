package simulate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
)

// prefixFloors are the least mean prefix kept a 1,000-iteration generated
// run may show, by budget. At 8,000 tokens it was measured 0.685 when
// first set, 0.483 once the window used its whole budget (recalls after
// Working were then paid in full at every call), 0.697 with the recalls
// in the run's timeline (0.874 at 32,000 tokens), 0.722 (0.882) once the
// run's state showed as of the last fold, before Working, and 0.754
// (0.882) once a fold's block stood in the timeline. See BENCHMARKS.md.
var prefixFloors = map[int]float64{8000: 0.73, 32000: 0.87}

// TestLongRunKeepsItsPrefix replays a long generated run sync by sync, as
// Delta Engine would call it, and fails if consecutive memory files share
// less of their prefix than the floor, if one exceeds the budget, or if
// the run saves less than 90% of the raw history's tokens.
func TestLongRunKeepsItsPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 1,000 iterations")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "synth-1000.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteJSONL(f, synth.Config{Seed: 11, Iterations: 1000, RunID: "synth-1000"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for budget, floor := range prefixFloors {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			t.Parallel()
			replayPrefix(t, path, budget, floor)
		})
	}
}

func replayPrefix(t *testing.T, path string, budget int, floor float64) {
	dir := t.TempDir()
	src, err := Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rep, err := Run(context.Background(), eng, src, Options{Workspace: dir, KeepRecent: memory.DefaultKeepRecent})
	if err != nil {
		t.Fatal(err)
	}
	if rep.WindowMax > budget {
		t.Errorf("a memory file had %d tokens, over the budget of %d", rep.WindowMax, budget)
	}
	if rep.RunSavings < 0.90 {
		t.Errorf("the run saved %.3f of the raw history's tokens, want >= 0.90", rep.RunSavings)
	}
	if rep.PrefixKept < floor {
		t.Errorf("prefix kept %.3f, under the floor %.2f", rep.PrefixKept, floor)
	}
	t.Logf("prefix kept %.3f, window mean %.0f, run saved %.3f, cost $%.2f (raw $%.2f)", rep.PrefixKept, rep.WindowMean, rep.RunSavings, rep.Cost, rep.RawCost)
}
