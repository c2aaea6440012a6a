package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/longmemeval"
	"github.com/delta-memory/delta-memory/recall"
)

// Candidate is one setting of the recall that a cross-validation may
// choose. The dev data is small, so a figure from settings chosen on it
// says little of data the engine never saw; a cross-validated one chooses
// on some of the data and reports on the rest.
type Candidate struct {
	Name string `json:"name"`
	// Recall changes the recall settings (after the settings file).
	Recall func(*recall.Config) `json:"-"`
}

// Candidates are the settings a cross-validation chooses among: how many
// of a question's best hits bring their neighbours (recall.focus), whether
// a second search runs on the words the first hits share
// (recall.second_hop), how far around a hit the nearby signal looks
// (recall.nearby), and how much the concept signal weighs
// (recall.concepts). The first is the default.
var Candidates = []Candidate{
	{Name: "focus 5, second hop 8, nearby 2, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, 8, 2, 0.25 }},
	{Name: "focus 5, second hop 8, nearby 5, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, 8, 5, 0.25 }},
	{Name: "focus 5, second hop 8, no nearby, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, 8, -1, 0.25 }},
	{Name: "focus 5, no second hop, nearby 2, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, -1, 2, 0.25 }},
	{Name: "focus 1, no second hop, nearby 2, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 1, -1, 2, 0.25 }},
	{Name: "focus 10, second hop 8, nearby 2, concepts 0.25", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 10, 8, 2, 0.25 }},
	{Name: "focus 5, second hop 8, nearby 2, no concepts", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, 8, 2, -1 }},
	{Name: "focus 5, second hop 8, nearby 2, concepts 0.5", Recall: func(c *recall.Config) { c.Focus, c.SecondHop, c.Nearby, c.Concepts = 5, 8, 2, 0.5 }},
}

// CrossValidation holds the held-out figures of a cross-validation: each
// fold is evaluated with the candidate that did best on the other folds
// (the engine's evidence recall, over all their questions), and the rows
// pool the folds' figures, question by question.
type CrossValidation struct {
	// Choose names the figure a candidate is chosen by.
	Choose string `json:"chosen_by"`
	Folds  []Fold `json:"folds"`
	Rows   []Row  `json:"rows"`
}

// Fold is one held-out part of the data and the candidate chosen for it.
type Fold struct {
	// Held names what the fold holds out: a conversation, or questions.
	Held      string `json:"held_out"`
	Questions int    `json:"questions"`
	Chosen    string `json:"chosen"`
	// Train is the chosen candidate's figure on the other folds; Test its
	// figure on this one.
	Train float64 `json:"train"`
	Test  float64 `json:"test"`
}

// crossValidate chooses, for each fold, the candidate with the best
// overall figure metric for SystemDelta on the other folds, and pools the
// held-out rows. rows[c][f] are candidate c's rows on fold f.
func crossValidate(rows [][][]Row, held []string, metric string, groups []string) *CrossValidation {
	cv := &CrossValidation{Choose: SystemDelta + " " + metric}
	var pooled tally
	for f := range held {
		best, bestScore := 0, -1.0
		for c := range rows {
			var others [][]Row
			for g := range held {
				if g != f {
					others = append(others, rows[c][g])
				}
			}
			if s := overallMean(others, metric); s > bestScore+1e-12 {
				best, bestScore = c, s
			}
		}
		test := rows[best][f]
		all := overallRow(test)
		fold := Fold{Held: held[f], Chosen: Candidates[best].Name, Train: bestScore}
		if all != nil {
			fold.Questions = all.Questions
			fold.Test = all.Systems[SystemDelta][metric]
		}
		cv.Folds = append(cv.Folds, fold)
		for _, r := range test {
			if r.Group != Overall {
				pooled.addRow(r)
			}
		}
	}
	cv.Rows = pooled.result(groups)
	return cv
}

// overallMean pools the overall rows of several folds: metric for
// SystemDelta, weighted by their questions.
func overallMean(folds [][]Row, metric string) float64 {
	sum, n := 0.0, 0
	for _, rows := range folds {
		if all := overallRow(rows); all != nil {
			sum += all.Systems[SystemDelta][metric] * float64(all.Questions)
			n += all.Questions
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// withCandidate returns opts evaluating candidate c, each question
// counted by step.
func withCandidate(opts Options, c Candidate, step func(run string)) Options {
	o := opts
	o.Dir, o.Limit, o.CrossValidate, o.Question = "", 0, false, nil
	o.Engine.Recall = c.Recall
	o.Progress = func(p Progress) { step(c.Name + ", " + p.Run) }
	return o
}

// locomoCrossValidation evaluates each conversation with every candidate
// and cross-validates by conversation: each is reported with the
// candidate that did best on the others. step is called after each
// question.
func locomoCrossValidation(ctx context.Context, convs []locomo.Conversation, opts Options, step func(run string)) (*CrossValidation, error) {
	if len(convs) < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 conversations, got %d: evaluate more of them, or leave out --cv", len(convs))
	}
	rows := make([][][]Row, len(Candidates))
	held := make([]string, len(convs))
	for c, cand := range Candidates {
		o := withCandidate(opts, cand, step)
		for f := range convs {
			held[f] = "conversation " + convs[f].ID
			rep, err := LoCoMo(ctx, convs[f:f+1], o)
			if err != nil {
				return nil, fmt.Errorf("cross-validation, %s: %w", cand.Name, err)
			}
			rows[c] = append(rows[c], rep.Rows)
		}
	}
	var cats []string
	for i := 1; i <= len(locomo.Categories); i++ {
		cats = append(cats, locomo.Categories[i])
	}
	return crossValidate(rows, held, MetricEvidence, cats), nil
}

// lmeFolds is how many parts a LongMemEval cross-validation splits the
// questions into (question i goes to part i mod lmeFolds).
const lmeFolds = 3

// longMemEvalCrossValidation evaluates the questions with every
// candidate, in lmeFolds parts, and cross-validates by part. step is
// called after each question.
func longMemEvalCrossValidation(ctx context.Context, qs []longmemeval.Question, opts Options, step func(run string)) (*CrossValidation, error) {
	if len(qs) < lmeFolds {
		return nil, fmt.Errorf("cross-validation needs at least %d questions, got %d: evaluate more of them, or leave out --cv", lmeFolds, len(qs))
	}
	parts := make([][]longmemeval.Question, lmeFolds)
	for i := range qs {
		parts[i%lmeFolds] = append(parts[i%lmeFolds], qs[i])
	}
	held := make([]string, lmeFolds)
	for f := range parts {
		var ids []string
		for _, q := range parts[f] {
			ids = append(ids, q.ID)
		}
		held[f] = fmt.Sprintf("questions %d mod %d (%s)", f, lmeFolds, clipList(ids, 3))
	}
	rows := make([][][]Row, len(Candidates))
	for c, cand := range Candidates {
		o := withCandidate(opts, cand, step)
		for f := range parts {
			rep, err := LongMemEval(ctx, parts[f], o)
			if err != nil {
				return nil, fmt.Errorf("cross-validation, %s: %w", cand.Name, err)
			}
			rows[c] = append(rows[c], rep.Rows)
		}
	}
	return crossValidate(rows, held, MetricEvidence, LongMemEvalTypes), nil
}

// clipList joins the first n of ss, saying how many more there are.
func clipList(ss []string, n int) string {
	if len(ss) <= n {
		return strings.Join(ss, ", ")
	}
	return fmt.Sprintf("%s, … %d more", strings.Join(ss[:n], ", "), len(ss)-n)
}
