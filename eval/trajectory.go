package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// TrajectoryOptions tune a trajectories eval.
type TrajectoryOptions struct {
	Options
	// Budgets are the context budgets evaluated, each on a replay of its
	// own; empty means Options.Budget alone.
	Budgets []int
}

// TrajectoryReport is the result of a trajectories eval: for each budget
// and system, the share of revisits whose earlier step is in the window.
type TrajectoryReport struct {
	Benchmark string `json:"benchmark"`
	Path      string `json:"path,omitempty"`
	// Runs counts the transcripts evaluated, Steps their steps (journal
	// iterations).
	Runs  int `json:"runs"`
	Steps int `json:"steps"`
	// Probes counts the probes evaluated (at each budget); Skipped those
	// left out because their earlier step gave no evidence term.
	Probes  int `json:"probes"`
	Skipped int `json:"skipped"`
	// WithoutToolCalls names the transcripts left out: no step calls a
	// tool, so nothing is revisited.
	WithoutToolCalls []string `json:"without_tool_calls"`
	// ProbesByDistance counts the probes by how far back they reach
	// (DistanceBuckets).
	ProbesByDistance map[string]int  `json:"probes_by_distance"`
	ByBudget         []BudgetRevisit `json:"by_budget"`
	// Transcripts are the runs evaluated, with their probes.
	Transcripts []TranscriptProbes `json:"transcripts"`
	// CrossValidation, when asked for, holds the held-out figures.
	CrossValidation *TrajectoryCrossValidation `json:"cross_validation,omitempty"`
	Seconds         float64                    `json:"seconds"`
}

// TranscriptProbes says what one transcript gave.
type TranscriptProbes struct {
	Name    string `json:"name"`
	Steps   int    `json:"steps"`
	Probes  int    `json:"probes"`
	Skipped int    `json:"skipped"`
}

// outcome is how one system did on one probe.
type outcome struct {
	held   bool
	tokens int
}

// runOutcomes are one run's outcomes: [budget][system][probe].
type runOutcomes []map[string][]outcome

// Trajectories evaluates the transcripts: each is replayed step by step
// into a fresh engine at each budget, and at each probe (a step whose tool
// call names a target an earlier step's call named) the window the engine
// builds for the pending call is checked for the earlier step's evidence,
// next to the recent and bm25-steps baselines under the same budget and
// tokenizer. The steps are the engine's own iterations, read from a
// scratch import of each transcript.
func Trajectories(ctx context.Context, ts []Transcript, opts TrajectoryOptions) (*TrajectoryReport, error) {
	start := time.Now()
	budgets := slices.Clone(opts.Budgets)
	if len(budgets) == 0 {
		budgets = []int{opts.Budget}
	}
	for i, b := range budgets {
		if b == 0 {
			budgets[i] = DefaultBudget
		} else if b < 0 {
			return nil, fmt.Errorf("budget %d: want a positive number of tokens", b)
		}
	}
	opts.Budget = budgets[0]
	dir, cleanup, err := opts.workDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if opts.Limit > 0 && len(ts) > opts.Limit {
		ts = ts[:opts.Limit]
	}
	rep := &TrajectoryReport{Benchmark: "trajectories", WithoutToolCalls: []string{}, Transcripts: []TranscriptProbes{}}
	runs, without, tok, err := prepareTrajectories(ctx, filepath.Join(dir, "scratch"), opts.Engine, ts)
	if err != nil {
		return nil, err
	}
	rep.WithoutToolCalls = append(rep.WithoutToolCalls, without...)
	if len(runs) == 0 {
		// A table of zeros would read as a result.
		return nil, fmt.Errorf("no transcript calls a tool, so no step comes back to an earlier one's target: nothing to measure in the %d transcript(s) read", len(ts))
	}
	for _, tr := range runs {
		rep.Runs++
		rep.Steps += len(tr.steps)
		rep.Probes += len(tr.probes)
		rep.Skipped += tr.skipped
		rep.Transcripts = append(rep.Transcripts, TranscriptProbes{Name: tr.name, Steps: len(tr.steps), Probes: len(tr.probes), Skipped: tr.skipped})
	}
	if opts.CrossValidate && len(runs) < trajFolds {
		return nil, fmt.Errorf("cross-validation needs at least %d runs with tool calls, got %d: evaluate more of them, or leave out --cv", trajFolds, len(runs))
	}
	total := rep.Steps * len(budgets)
	if opts.CrossValidate {
		total *= 1 + len(FoldCandidates)
	}
	done := 0
	progress := func(run string) func() {
		return func() {
			done++
			if opts.Progress != nil {
				opts.Progress(Progress{Done: done, Total: total, Run: run})
			}
		}
	}
	all := make([]runOutcomes, len(runs))
	for r, tr := range runs {
		st := measure(tok, tr)
		for bi, budget := range budgets {
			cfg := opts.Engine
			cfg.Budget = budget
			runDir := filepath.Join(dir, fmt.Sprintf("run%d-%d", r+1, budget))
			ours, err := replayDelta(ctx, tr, cfg, runDir, nil, progress(fmt.Sprintf("%s at %d tokens", tr.name, budget)))
			if err != nil {
				return nil, fmt.Errorf("trajectory %s: %w", tr.name, err)
			}
			opts.drop(runDir)
			all[r] = append(all[r], map[string][]outcome{})
			all[r][bi][SystemDelta] = judge(tr, ours)
			windows := make(map[string][]shown)
			for _, p := range tr.probes {
				for sys, sh := range baselineWindows(tok, tr, st, p, budget) {
					windows[sys] = append(windows[sys], sh)
				}
			}
			for sys, shs := range windows {
				all[r][bi][sys] = judge(tr, shs)
			}
			if opts.Probe != nil {
				windows[SystemDelta] = ours
				for i, p := range tr.probes {
					shown := make(map[string]shown, len(windows))
					for sys, shs := range windows {
						shown[sys] = shs[i]
					}
					pr := probeResult(tr.name, budget, p, shown)
					pr.Contexts = contextTexts(opts.Options, shown)
					opts.Probe(pr)
				}
			}
		}
	}
	rep.ByBudget = tallyBudgets(runs, all, budgets, TrajectorySystems, nil)
	rep.ProbesByDistance = map[string]int{}
	for _, tr := range runs {
		for _, p := range tr.probes {
			rep.ProbesByDistance[DistanceBuckets[distanceBucket(p.Distance())]]++
		}
	}
	if opts.CrossValidate {
		if rep.CrossValidation, err = trajectoryCrossValidation(ctx, runs, opts, budgets, filepath.Join(dir, "cv"), progress); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// judge checks each probe's evidence against the window shown for it.
func judge(tr *trajectory, shs []shown) []outcome {
	out := make([]outcome, len(tr.probes))
	for i, p := range tr.probes {
		out[i] = outcome{held: p.holds(wordSet(shs[i].text)), tokens: shs[i].tokens}
	}
	return out
}
