package window_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

// TestCompressionOnCommittedJournal imports the committed 400-iteration
// journal at two budgets and compares the window with the full history: the
// window must fit its budget and be several times smaller than the history.
// Run with -v to see the figures.
func TestCompressionOnCommittedJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "journals", "synth-400.jsonl")
	for _, budget := range []int{8000, 32000} {
		ctx := context.Background()
		eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "m.db"), Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		res, step, err := eng.Import(ctx, path, journal.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run, _ := eng.Journal.Run(ctx, res.Run)
		its, err := eng.Journal.Iterations(ctx, run.ID, 1, run.Iterations, journal.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw := eng.Tokenizer.Count(run.Task)
		for _, it := range its {
			raw += eng.Tokenizer.Count(it.Text())
		}
		cx, err := eng.Context(ctx, run, memory.ContextOptions{})
		if err != nil {
			t.Fatal(err)
		}
		window := eng.Tokenizer.Count(cx.Markdown())
		if window > budget {
			t.Fatalf("budget %d: window is %d tokens", budget, window)
		}
		if raw < 5*window {
			t.Fatalf("budget %d: window %d tokens against %d of history: less than 5x smaller", budget, window, raw)
		}
		t.Logf("budget %6d: history %d tokens, window %d tokens (%.1f%% of the history, %.0fx smaller), %d folds",
			budget, raw, window, 100*float64(window)/float64(raw), float64(raw)/float64(window), len(step.Fold.Folds))
	}
}
