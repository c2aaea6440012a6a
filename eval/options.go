package eval

import (
	"fmt"
	"os"

	"github.com/delta-memory/delta-memory"
)

// DefaultBudget is the context budget of an eval, in tokens.
const DefaultBudget = 4000

// Options tune an eval.
type Options struct {
	// Budget is the context budget in tokens, for the engine and the
	// baselines alike (default DefaultBudget).
	Budget int
	// Limit keeps the first Limit conversations (LoCoMo) or questions
	// (LongMemEval); 0 keeps all.
	Limit int
	// Engine is how each run's engine is opened (settings file, summarizer,
	// tokenizer); the eval sets DBPath and Budget.
	Engine memory.Config
	// Dir, when set, keeps each run's database there for inspection: a
	// LoCoMo conversation folded, before any question (each is asked on a
	// copy), a LongMemEval haystack with its question asked. It must be
	// empty or new. Empty means a temporary directory, removed at the end.
	Dir string
	// CrossValidate also evaluates every candidate setting (Candidates)
	// on each part of the data and reports each part with the one that
	// did best on the others (the report's CrossValidation).
	CrossValidate bool
	// Progress, if set, is called after each question; with
	// CrossValidate, Total counts every candidate's questions too.
	Progress func(Progress)
	// Question, if set, is given each question's result, in order. It is
	// not called for the candidates of CrossValidate.
	Question func(QuestionResult)
	// Probe, if set, is given each probe's result of a trajectories eval,
	// run by run and, within a run, budget by budget, in order; not for
	// the candidates of CrossValidate either.
	Probe func(ProbeResult)
	// Contexts puts each system's context text in the results given to
	// Question and Probe (their Contexts), to read a miss in the context
	// itself.
	Contexts bool
}

// Progress says how far an eval got.
type Progress struct {
	// Done and Total count questions.
	Done, Total int
	// Run is the conversation or question being evaluated.
	Run string
}

// workDir returns the directory for the eval's databases and what removes
// it afterwards. It also settles the budget.
func (o *Options) workDir() (string, func(), error) {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	o.Engine.Budget = o.Budget
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("eval directory: %w", err)
		}
		// An earlier eval's databases would be opened as they are: their
		// runs already imported and folded under that eval's budget and
		// settings, so this one's figures would be theirs.
		entries, err := os.ReadDir(o.Dir)
		if err != nil {
			return "", nil, fmt.Errorf("eval directory: %w", err)
		}
		if len(entries) > 0 {
			return "", nil, fmt.Errorf("eval directory %s is not empty (it holds %s): an earlier eval's databases there would be used as they are; remove it, or keep this eval's in a new directory", o.Dir, entries[0].Name())
		}
		return o.Dir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "delta-eval-")
	if err != nil {
		return "", nil, fmt.Errorf("eval directory: %w (set TMPDIR to a writable directory)", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// drop removes a run's directory once its questions are done, unless the
// eval keeps them.
func (o *Options) drop(dir string) {
	if o.Dir == "" {
		os.RemoveAll(dir)
	}
}
