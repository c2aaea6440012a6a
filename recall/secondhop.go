package recall

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// Second-hop recall (pseudo-relevance feedback). A question whose answer
// spans several turns ("what do both of them do for fun?") matches the
// turn that names its words, but the others say it in words of their own:
// the activity, the place, the person. Those words tend to recur among the
// best first hits. A second search with the question and them finds the
// other turns, and reciprocal-rank fusion of both rankings keeps what the
// question itself matched on top: a turn needs a good rank in the first
// search, or in both, to rise.
const (
	// feedbackDocs is how many of the first search's best iteration hits
	// give the expansion words.
	feedbackDocs = 5
	// minFeedback is how many of them must hold a word: a word of one hit
	// alone describes that hit, which is found already.
	minFeedback = 2
	// rrfK damps reciprocal-rank fusion, at the value its authors found
	// robust across collections (Cormack et al., 2009).
	rrfK = 60
)

// secondHop runs the second search of a recall that asks for more hits
// than its focus (a fill, or a limit past it) and fuses it with the first,
// the best focus hits kept in their places. It returns hits
// unchanged when the first hits share no words worth adding. ar, when
// not nil, keeps the expansion for the fill's next round.
func (r *Recaller) secondHop(ctx context.Context, ix *index, ar *Around, run string, l lookup, hits []Hit, focus int) ([]Hit, error) {
	if r.cfg.SecondHop <= 0 {
		return hits, nil
	}
	words, err := ar.expansion(ctx, r, ix, run, l.words, hits)
	if err != nil || len(words) == 0 {
		return hits, err
	}
	// The second search ranks what may follow the kept hits: as many as
	// a recall takes (the first asked for more, to allow for overlaps).
	l2 := l
	l2.words = l.words + " " + strings.Join(words, " ")
	l2.limit = max(1, cmp.Or(l.follow, l.limit/retrieveDepth))
	more, err := ix.search(ctx, l2)
	if err != nil {
		return nil, err
	}
	keep := min(focus, len(hits))
	return append(hits[:keep:keep], fuse(hits[keep:], more, hits[:keep])...), nil
}

// expansion picks the words of the best first hits that recur among them
// and are rare in the run, best first: feedback documents holding the word
// times its inverse document frequency.
func (r *Recaller) expansion(ctx context.Context, ix *index, run, question string, hits []Hit) ([]string, error) {
	an := ix.bi.Mapping().AnalyzerNamed(analyzerText)
	if an == nil {
		return nil, nil
	}
	asked := map[string]bool{}
	for _, t := range an.Analyze([]byte(question)) {
		asked[string(t.Term)] = true
	}
	held := map[string]int{}
	docs := 0
	for _, h := range hits {
		if docs == feedbackDocs {
			break
		}
		if h.Kind != KindIteration {
			continue
		}
		it, err := r.journal.Iteration(ctx, run, h.First, journal.ReadOptions{})
		if err != nil {
			return nil, err
		}
		docs++
		seen := map[string]bool{}
		for _, t := range an.Analyze([]byte(iterationDoc(it).text)) {
			w := string(t.Term)
			if !seen[w] && !asked[w] && len(w) > 2 {
				seen[w] = true
				held[w]++
			}
		}
	}
	type scored struct {
		word  string
		score float64
	}
	var recurring []string
	for w, n := range held {
		if n >= minFeedback {
			recurring = append(recurring, w)
		}
	}
	if len(recurring) == 0 {
		return nil, nil
	}
	total, dfs, err := ix.docFreqs(ctx, fieldText, recurring)
	if err != nil {
		return nil, err
	}
	var out []scored
	for _, w := range recurring {
		// A word in a tenth of the run or more says little of any turn.
		if df := dfs[w]; df > 0 && df*10 <= total {
			out = append(out, scored{w, float64(held[w]) * math.Log(float64(total)/float64(df))})
		}
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.word, b.word))
	})
	words := make([]string, 0, r.cfg.SecondHop)
	for _, c := range out {
		if len(words) == r.cfg.SecondHop {
			break
		}
		words = append(words, c.word)
	}
	return words, nil
}

// hitKey names a hit in rankings that are fused: the same document, the
// same range.
type hitKey struct {
	kind, block string
	first, last int
}

func keyOf(h Hit) hitKey { return hitKey{h.Kind, h.Block, h.First, h.Last} }

// fuse merges two rankings of hits by reciprocal-rank fusion: a hit scores
// the sum of 1/(rrfK+rank) over the rankings that hold it, its rank in the
// first counted after the kept hits, which the second may hold too and
// which are left out. Ties keep the first ranking's order. The fused score
// replaces the BM25 one, scaled to stay under the kept hits' scores.
func fuse(first, second, kept []Hit) []Hit {
	at := make(map[hitKey]int, len(first)+len(second))
	skip := make(map[hitKey]bool, len(kept))
	for _, h := range kept {
		skip[keyOf(h)] = true
	}
	out := make([]Hit, 0, len(first)+len(second))
	for i, h := range first {
		at[keyOf(h)] = len(out)
		h.Score = 1 / float64(rrfK+len(kept)+i+1)
		out = append(out, h)
	}
	rank := 0
	for _, h := range second {
		if skip[keyOf(h)] {
			continue
		}
		rank++
		s := 1 / float64(rrfK+len(kept)+rank)
		if j, ok := at[keyOf(h)]; ok {
			out[j].Score += s
			continue
		}
		h.Score = s
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	// Fused scores are small; keep them below the last kept hit's, so that
	// recalls ordered by score keep the ranking.
	if len(kept) > 0 {
		floor := kept[len(kept)-1].Score
		for i := range out {
			out[i].Score *= floor / (2 / float64(rrfK))
		}
	}
	// Two hits with swapped ranks fuse to the same score.
	descend(out)
	return out
}

// descend makes the scores of hits, in their order, strictly decreasing:
// a hit that scores as much as the one before it gets the next lower
// float, so that what orders recalls by score (the recall store) keeps
// this order.
func descend(hits []Hit) {
	for i := 1; i < len(hits); i++ {
		if hits[i].Score >= hits[i-1].Score {
			hits[i].Score = math.Nextafter(hits[i-1].Score, math.Inf(-1))
		}
	}
}
