package recall

import (
	"cmp"
	"math"
	"slices"
)

// The nearby signal. A turn that answers a question sits among turns about
// the same thing: the exchange that led to it and the one that follows.
// One turn may match the question's words by chance; a stretch of the run
// in which several turns match is about the question. So each iteration
// hit is also scored by the hits around it, within Config.Nearby
// iterations on each side: the sum of their scores, its own included. The
// ranking by that sum is fused with the plain one by reciprocal rank
// (secondhop.go's fuse does the same for the second search): a hit in a
// stretch that matches rises, a lone hit of a common word falls, and a
// hit that is best on its own keeps a good rank.
//
// It ranks sessions as whole-session retrievers do (EmergenceMem scores a
// session by how many of its turns rank high), without knowing where
// sessions begin: the window is a few turns on each side.

// nearbyForWords applies the nearby signal to a query in words. A query
// that names an identifier (named: a path, a file name, a code, as
// scoring.Entities reads them) looks it up: its exact matches come first,
// wherever they sit, and the hits keep BM25's order.
func nearbyForWords(hits []Hit, named []string, w, now int) []Hit {
	if len(named) > 0 {
		return hits
	}
	return nearby(hits, w, now)
}

// nearby reorders hits by fusing their ranking with the nearby ranking.
// Blocks take part in the fusion by their own rank alone. Every hit's
// score becomes its fused score, scaled so that the best keeps its BM25
// score, and strictly decreasing down the ranking, so that what orders
// recalls by score (the recall store) keeps this order. The current step (iteration now and later), which matches its
// own words best, lends no score to the turns before it. It returns hits
// unchanged when w is 0 or there are fewer than three hits.
func nearby(hits []Hit, w, now int) []Hit {
	if w <= 0 || len(hits) < 3 {
		return hits
	}
	type scored struct {
		at    int // index in hits
		sum   float64
		first int
	}
	var its []scored
	lend := func(h Hit) float64 {
		if h.Last >= now {
			return 0
		}
		return h.Score
	}
	for i, h := range hits {
		if h.Kind == KindIteration {
			its = append(its, scored{at: i, first: h.First})
		}
	}
	slices.SortFunc(its, func(a, b scored) int { return cmp.Compare(a.first, b.first) })
	// A sliding window over the hits in run order: each hit's sum is the
	// scores of the hits within w iterations of it.
	sums := make([]float64, len(its))
	lo, hi, total := 0, 0, 0.0
	for i, s := range its {
		for hi < len(its) && its[hi].first <= s.first+w {
			total += lend(hits[its[hi].at])
			hi++
		}
		for its[lo].first < s.first-w {
			total -= lend(hits[its[lo].at])
			lo++
		}
		sums[i] = total
	}
	for i := range its {
		its[i].sum = sums[i]
		if h := hits[its[i].at]; h.Last >= now {
			its[i].sum += h.Score // its own score, which it lends to no other
		}
	}
	// Rank by the sum (ties: the plain rank), then fuse.
	slices.SortStableFunc(its, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.sum, a.sum), cmp.Compare(a.at, b.at))
	})
	fused := make([]float64, len(hits))
	for i := range hits {
		fused[i] = 1 / float64(rrfK+i+1)
	}
	for r, s := range its {
		fused[s.at] += 1 / float64(rrfK+r+1)
	}
	// Blocks have no nearby rank: count them twice at their own, so that
	// the fusion leaves their place as it was against iterations ranked
	// the same by both.
	for i, h := range hits {
		if h.Kind != KindIteration {
			fused[i] *= 2
		}
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(fused[b], fused[a]) })
	out := make([]Hit, len(hits))
	top := hits[0].Score
	for r, i := range order {
		out[r] = hits[i]
		// Scores keep their meaning (higher is better, in the BM25
		// scale of the best hit) for what orders recalls by score; two
		// hits with swapped ranks fuse to the same score, and the one
		// ranked second gets the next lower float.
		out[r].Score = top * fused[i] / fused[order[0]]
		if r > 0 && out[r].Score >= out[r-1].Score {
			out[r].Score = math.Nextafter(out[r-1].Score, math.Inf(-1))
		}
	}
	return out
}
