package window_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// TestRecallsTakeWhatWorkingLeaves offers recalls that overflow the
// Retrieved share while Working, with three iterations, leaves most of the
// budget unused: focused on a question to memory, the recalls show in full
// in what is left and Working keeps its iterations; unfocused, they go in
// the run's timeline and take at most their reach (twice the share or a
// quarter of the budget: what comes after Working's newest iteration is
// paid in full at the call that adds it), the first offered (the most
// recently made) in full. The window stays within its budget. With the
// budget used up, some show one line each, or are named.
func TestRecallsTakeWhatWorkingLeaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		budget   int
		focus    bool
		wantFull bool
	}{{8000, true, true}, {8000, false, false}, {2000, false, false}} {
		eng := openWindowEngine(t, tc.budget)
		evs, err := synth.Events(synth.Config{Seed: 5, Iterations: 3, RunID: "spill", MaxOutputBytes: 300})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Journal.Append(ctx, "spill", journal.FormatDelta, evs); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Scheduler.Step(ctx, "spill"); err != nil {
			t.Fatal(err)
		}
		run, err := eng.Journal.Run(ctx, "spill")
		if err != nil {
			t.Fatal(err)
		}
		var recalls []window.Recalled
		for i := 1; i <= 6; i++ {
			full := fmt.Sprintf("recalled text %d: %s", i, strings.Repeat("the parser retried the upload and logged it. ", 30))
			recalls = append(recalls, window.Recalled{Name: fmt.Sprintf("Iteration %d", i), Source: fmt.Sprintf("recall:%d", i),
				Full: full, Lines: fmt.Sprintf("[iter %d] retried the upload", i)})
		}
		cx, err := window.Build(ctx, eng.Journal, eng.Fold, run, window.Options{Config: eng.Config, Tokenizer: eng.Tokenizer, Recalled: recalls, Focus: tc.focus})
		if err != nil {
			t.Fatal(err)
		}
		share := eng.Config.RetrievedBudget()
		ret := cx.Partitions[5]
		full := 0
		for _, how := range cx.Recalls {
			if how == window.ShownFull {
				full++
			}
		}
		if n := eng.Tokenizer.Count(cx.Markdown()); n > tc.budget {
			t.Errorf("budget %d: the window has %d tokens", tc.budget, n)
		}
		if len(cx.Recalls) != len(recalls) {
			t.Errorf("budget %d: %d recalls accounted for, want %d", tc.budget, len(cx.Recalls), len(recalls))
		}
		if tc.wantFull {
			if full != len(recalls) || ret.Tokens <= share || ret.Budget < ret.Tokens {
				t.Errorf("budget %d: %d of %d recalls in full, retrieved %d tokens of budget %d (share %d)",
					tc.budget, full, len(recalls), ret.Tokens, ret.Budget, share)
			}
			if w := cx.Partitions[4]; len(w.Sections) != 3 {
				t.Errorf("working shows %d iterations, want all 3", len(w.Sections))
			}
			continue
		}
		if !tc.focus && tc.budget == 8000 && (cx.Recalls["recall:1"] != window.ShownFull || full < 2 || ret.Tokens > max(2*share, tc.budget/4)) {
			t.Errorf("budget %d, unfocused: %v, retrieved %d tokens (share %d)", tc.budget, cx.Recalls, ret.Tokens, share)
		}
		if tc.budget == 2000 && full == len(recalls) || ret.Tokens > ret.Budget {
			t.Errorf("budget %d: %d of %d recalls in full, retrieved %d tokens of budget %d", tc.budget, full, len(recalls), ret.Tokens, ret.Budget)
		}
	}
}
