package recall

import (
	"context"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// An error-driven recall scores 1 + specificity × weight, the weight
// saying how well the iteration it brings back explains the failure:
// what changed the entity last explains it best (it was moved, deleted,
// made unreadable, overwritten), then what made it. An entity the state
// changes do not know is looked up in the mentions: an iteration that
// changed it, else one that named it. The 1 ranks a failure's recalls
// ahead of the implicit ones (which score at most 1) the same step makes.
const (
	weightLast    = 1.0
	weightMaking  = 0.9
	weightChanged = 0.8
	weightNamed   = 0.6
)

// errorCandidate is an iteration that may explain a failure on an entity.
type errorCandidate struct {
	iteration int
	query     string
	score     float64
}

// errorRecalls looks back, for each failed action of the iteration, at
// what it failed on: for each entity, the iteration that changed it last
// (or removed a directory above it), then the one that made it. All the
// entities' last changes come before any making, and only iterations the
// window folded are brought back, at most Config.MaxError of them. An
// entity with no state change is looked up in the mentions instead: the
// iterations that changed it, else those that named it, fewest names and
// then newest first.
func (r *Recaller) errorRecalls(ctx context.Context, run string, it *journal.Iteration) ([]Recall, error) {
	// Per entity, the candidates for its first recall, in order (the
	// first folded one is taken), and its making.
	var firsts [][]errorCandidate
	var makings []errorCandidate
	for i := range it.Calls {
		c := &it.Calls[i]
		if c.Result == nil {
			continue
		}
		tail := excerpt(c.Result.Output, 0, 4096)
		if !c.Result.Failed() && !scoring.FailureText(tail) {
			continue
		}
		text := scoring.ErrorLine(tail, 300) + "\n" + scoring.ArgText(c.Args) + "\n" + c.Command
		for _, n := range namedEntities(text, 4) {
			if n.spec < minErrorSpecificity {
				break // sorted: the rest are vaguer still
			}
			last, made, err := r.folds.Changes(ctx, run, n.value, it.Number)
			if err != nil {
				return nil, err
			}
			if last > 0 {
				firsts = append(firsts, []errorCandidate{{last, n.value, errorScore(n.spec, weightLast)}})
				if made > 0 && made != last {
					makings = append(makings, errorCandidate{made, n.value, errorScore(n.spec, weightMaking)})
				}
				continue
			}
			cands, err := r.mentionCandidates(ctx, run, n, it.Number)
			if err != nil {
				return nil, err
			}
			firsts = append(firsts, cands)
		}
	}
	var out []Recall
	// take adds the first candidate that is folded and not taken yet.
	take := func(cands []errorCandidate) error {
		for _, c := range cands {
			if len(out) >= r.cfg.MaxError || contains(out, c.iteration, c.iteration) {
				continue
			}
			full, err := r.folds.InFull(ctx, run, c.iteration, c.iteration)
			if err != nil {
				return err
			}
			if full > 0 {
				continue // the agent can see it
			}
			out = append(out, Recall{First: c.iteration, Last: c.iteration, Reason: ReasonError, Query: c.query, Score: c.score, Again: true})
			return nil
		}
		return nil
	}
	for _, cands := range firsts {
		if err := take(cands); err != nil {
			return nil, err
		}
	}
	for _, c := range makings {
		if err := take([]errorCandidate{c}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mentionCandidates returns the iterations before `before` the mentions
// say changed an entity, else those that named it, best first.
func (r *Recaller) mentionCandidates(ctx context.Context, run string, n named, before int) ([]errorCandidate, error) {
	w := weightChanged
	hits, err := r.store.mentionHits(ctx, run, n.term, mentionChanged, before, 4)
	if err == nil && len(hits) == 0 {
		w = weightNamed
		hits, err = r.store.mentionHits(ctx, run, n.term, mentionActed, before, 4)
	}
	if err != nil {
		return nil, err
	}
	out := make([]errorCandidate, len(hits))
	for i, h := range hits {
		out[i] = errorCandidate{h.First, n.value, errorScore(n.spec, w)}
	}
	return out, nil
}

// errorScore is an error-driven recall's score (see weightLast).
func errorScore(spec, weight float64) float64 { return round3(1 + spec*weight) }
