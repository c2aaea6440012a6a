package simulate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
)

// prefixFloor is the least mean prefix kept a 1,000-iteration generated run
// may show at 8,000 tokens. Measured 0.685 when it was first set (0.509
// before the window kept its volatile parts to the end), then 0.483 once
// the window used its whole budget (no fold while the history fits,
// recalls shown whole, up to a quarter of the budget): a fuller window has
// a larger tail to pay for. See BENCHMARKS.md.
const prefixFloor = 0.46

// TestLongRunKeepsItsPrefix replays a long generated run sync by sync, as
// Delta Engine would call it, and fails if consecutive memory files share
// less of their prefix than the floor, if one exceeds the budget, or if
// the run saves less than 90% of the raw history's tokens.
func TestLongRunKeepsItsPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 1,000 iterations")
	}
	t.Parallel()
	const budget = 8000
	dir := t.TempDir()
	path := filepath.Join(dir, "synth-1000.jsonl")
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
	if rep.PrefixKept < prefixFloor {
		t.Errorf("prefix kept %.3f, under the floor %.2f", rep.PrefixKept, prefixFloor)
	}
	t.Logf("prefix kept %.3f, window mean %.0f, run saved %.3f, cost $%.2f (raw $%.2f)", rep.PrefixKept, rep.WindowMean, rep.RunSavings, rep.Cost, rep.RawCost)
}
