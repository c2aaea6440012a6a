package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/delta-memory/delta-memory/fold"
)

// trajFolds is how many parts a trajectories cross-validation splits the
// runs into: run i (in the order evaluated) goes to part i mod trajFolds.
const trajFolds = 4

// FoldCandidate is one fold setting a trajectories cross-validation may
// choose.
type FoldCandidate struct {
	Name string `json:"name"`
	// Fold changes the engine's fold settings (after the settings file).
	Fold func(*fold.Config) `json:"-"`
}

// FoldCandidates are the settings a trajectories cross-validation chooses
// among: the usage the pressure trigger folds the window down to
// (pressure.low), how large a tool output shows whole in an iteration
// (max_output_tokens: 0 scales it with the budget). The first is the
// default. How much Static may take (shares.static_cap) is not among
// them: the probes do not look at Static, so a smaller cap always wins
// here, though an agent needs its system prompt.
var FoldCandidates = []FoldCandidate{
	{Name: "defaults (pressure low 0.6, outputs up to a quarter of the budget)", Fold: func(*fold.Config) {}},
	{Name: "pressure low 0.75", Fold: func(c *fold.Config) { c.PressureLow = 0.75 }},
	{Name: "pressure low 0.45", Fold: func(c *fold.Config) { c.PressureLow = 0.45 }},
	{Name: "max output tokens 2000", Fold: func(c *fold.Config) { c.MaxOutputTokens = 2000 }},
	{Name: "max output tokens 500", Fold: func(c *fold.Config) { c.MaxOutputTokens = 500 }},
}

// TrajectoryCrossValidation holds the held-out figures of a trajectories
// cross-validation: each part of the runs is replayed with the candidate
// whose revisit rate (the engine's, over every budget) was best on the
// other parts, and the engine's figures pool the parts.
type TrajectoryCrossValidation struct {
	// Choose names the figure a candidate is chosen by.
	Choose string           `json:"chosen_by"`
	Folds  []TrajectoryFold `json:"folds"`
	// ByBudget holds the held-out figures of SystemDelta alone: the
	// baselines do not depend on the engine's settings.
	ByBudget []BudgetRevisit `json:"by_budget"`
}

// TrajectoryFold is one held-out part of the runs and the candidate
// chosen for it.
type TrajectoryFold struct {
	Held   string `json:"held_out"`
	Runs   int    `json:"runs"`
	Probes int    `json:"probes"`
	Chosen string `json:"chosen"`
	// Train is the chosen candidate's revisit rate on the other parts,
	// Test its rate on this one, over every budget.
	Train float64 `json:"train"`
	Test  float64 `json:"test"`
}

// trajectoryCrossValidation replays every run at every budget with each
// candidate, under dir (removed as it goes), and cross-validates by part.
// progress makes the callback for each replay's steps.
func trajectoryCrossValidation(ctx context.Context, runs []*trajectory, opts TrajectoryOptions, budgets []int, dir string,
	progress func(run string) func()) (*TrajectoryCrossValidation, error) {
	cand := make([][]runOutcomes, len(FoldCandidates))
	for c, fc := range FoldCandidates {
		cand[c] = make([]runOutcomes, len(runs))
		for r, tr := range runs {
			for _, budget := range budgets {
				cfg := opts.Engine
				cfg.Budget = budget
				runDir := filepath.Join(dir, fmt.Sprintf("c%d-run%d-%d", c+1, r+1, budget))
				ours, err := replayDelta(ctx, tr, cfg, runDir, fc.Fold, progress(fmt.Sprintf("%s, %s at %d tokens", fc.Name, tr.name, budget)))
				os.RemoveAll(runDir)
				if err != nil {
					return nil, fmt.Errorf("cross-validation, %s, trajectory %s: %w", fc.Name, tr.name, err)
				}
				cand[c][r] = append(cand[c][r], map[string][]outcome{SystemDelta: judge(tr, ours)})
			}
		}
	}
	return crossValidateRuns(runs, cand, budgets), nil
}

// crossValidateRuns chooses, for each part of the runs, the candidate with
// the best revisit rate of SystemDelta on the other parts, over every
// budget (ties to the earlier candidate), and pools the held-out figures.
// cand[c][r] are candidate c's outcomes on run r.
func crossValidateRuns(runs []*trajectory, cand [][]runOutcomes, budgets []int) *TrajectoryCrossValidation {
	part := func(r int) int { return r % trajFolds }
	count := func(c int, in func(r int) bool) (held, probes int) {
		for r := range runs {
			if !in(r) {
				continue
			}
			for _, bo := range cand[c][r] {
				for _, o := range bo[SystemDelta] {
					probes++
					if o.held {
						held++
					}
				}
			}
		}
		return held, probes
	}
	cv := &TrajectoryCrossValidation{Choose: SystemDelta + " revisit rate, over every budget"}
	chosen := make([]int, trajFolds)
	for f := range trajFolds {
		best, bestRate := 0, -1.0
		for c := range cand {
			if r := newRevisit(count(c, func(r int) bool { return part(r) != f })).Rate; r > bestRate+1e-12 {
				best, bestRate = c, r
			}
		}
		chosen[f] = best
		fd := TrajectoryFold{Chosen: FoldCandidates[best].Name, Train: bestRate,
			Test: newRevisit(count(best, func(r int) bool { return part(r) == f })).Rate}
		var names []string
		for r, tr := range runs {
			if part(r) == f {
				fd.Runs++
				fd.Probes += len(tr.probes)
				names = append(names, tr.name)
			}
		}
		fd.Held = fmt.Sprintf("runs %d mod %d (%s)", f, trajFolds, clipList(names, 3))
		cv.Folds = append(cv.Folds, fd)
	}
	pooled := make([]runOutcomes, len(runs))
	for r := range runs {
		pooled[r] = cand[chosen[part(r)]][r]
	}
	cv.ByBudget = tallyBudgets(runs, pooled, budgets, []string{SystemDelta}, nil)
	return cv
}
