package eval

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrajectoriesDev replays the first runs of the tau-bench airline dev
// file (../shared/evaldata/tau-bench-airline, 40 real trajectories with
// tool calls) at three budgets: the report must add up, and the baselines
// must hold probes. It skips when the data is absent.
func TestTrajectoriesDev(t *testing.T) {
	t.Parallel()
	path := filepath.Join(devData, "tau-bench-airline", "dev.json")
	ts, err := LoadTranscripts(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("dev data not here (../shared/evaldata/tau-bench-airline): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 40 || !strings.HasPrefix(ts[0].Name, "dev.json#") {
		t.Errorf("%d transcripts, the first %q; want 40, named by task_id", len(ts), ts[0].Name)
	}
	const limit = 6
	budgets := []int{2000, 4000, 8000}
	rep, err := Trajectories(context.Background(), ts, TrajectoryOptions{Options: Options{Limit: limit}, Budgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	rep.Path = path
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
	if rep.Runs+len(rep.WithoutToolCalls) != limit || rep.Runs == 0 || rep.Probes == 0 {
		t.Fatalf("runs %d, left out %d, probes %d", rep.Runs, len(rep.WithoutToolCalls), rep.Probes)
	}
	probes, steps, byDistance := 0, 0, 0
	for _, tp := range rep.Transcripts {
		probes += tp.Probes
		steps += tp.Steps
	}
	for _, n := range rep.ProbesByDistance {
		byDistance += n
	}
	if probes != rep.Probes || byDistance != rep.Probes || steps != rep.Steps {
		t.Errorf("probes %d, by transcript %d, by distance %d; steps %d, by transcript %d", rep.Probes, probes, byDistance, rep.Steps, steps)
	}
	if len(rep.ByBudget) != len(budgets) {
		t.Fatalf("%d budgets reported, want %d", len(rep.ByBudget), len(budgets))
	}
	for i, b := range rep.ByBudget {
		if b.Budget != budgets[i] {
			t.Errorf("budget %d reported as %d", budgets[i], b.Budget)
		}
		for _, sys := range TrajectorySystems {
			s := b.Systems[sys]
			n := 0
			for _, d := range s.ByDistance {
				n += d.Probes
			}
			if s.Probes != rep.Probes || n != rep.Probes || s.Held > s.Probes || s.MeanTokens > float64(b.Budget) {
				t.Errorf("%d tokens, %s: %+v", b.Budget, sys, s)
			}
			if sys != SystemDelta && s.Held == 0 {
				t.Errorf("%d tokens: %s holds no probe", b.Budget, sys)
			}
		}
	}
}
