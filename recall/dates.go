package recall

import (
	"cmp"
	"context"
	"slices"

	"github.com/delta-memory/delta-memory/journal"
)

// maxCueRanges bounds the stretches of a run one question's time cues
// search: a question names one time, or two it compares.
const maxCueRanges = 3

// byTime ranks hits a second time when the question names a time
// (timeCues): the same search, kept to the iterations said then, fused
// with the first by reciprocal rank. A turn that matches the question and
// was said when the question says rises over one that only matches; one
// said then that matches less well comes up from deeper than the first
// search reached. It returns hits unchanged when the question names no
// time, the journal gives its turns none, or the time named holds none of
// the run's turns or all of them.
func (r *Recaller) byTime(ctx context.Context, ix *index, run journal.Run, l lookup, hits []Hit) ([]Hit, error) {
	if r.cfg.Dates <= 0 || run.Iterations < 2 || len(hits) == 0 || !namesTime(l.words) {
		return hits, nil
	}
	now, err := r.journal.StartedAt(ctx, run.ID, run.Iterations)
	if err != nil || now.IsZero() {
		return hits, err
	}
	ranges, err := r.cueRanges(ctx, run, timeCues(l.words, now))
	if err != nil || len(ranges) == 0 {
		return hits, err
	}
	var dated []Hit
	for _, rg := range ranges {
		dl := l
		dl.concepts = nil
		dl.from, dl.before, dl.upTo = rg[0], rg[1]+1, run.Iterations
		more, err := ix.search(ctx, dl)
		if err != nil {
			return nil, err
		}
		dated = append(dated, more...)
	}
	if len(dated) == 0 {
		return hits, nil
	}
	// The ranges' searches score alike (one query, one index): merged by
	// score they are one ranking.
	slices.SortStableFunc(dated, compareHits)
	return fuseDated(hits, dated), nil
}

// fuseDated fuses the first ranking of a recall with the ranking of the
// same search kept to the time the question names, by reciprocal rank,
// each hit of the second weighed by its score against the first's best
// (at most 1). A short stretch of time ranks a turn that shares one common
// word with the question near its top; weighed, such a turn rises no more
// than its match is worth, while one that matches as well as the best of
// the whole run rises as a first-ranked hit would. Scores stay on the
// first ranking's scale (the recall store orders recalls by score),
// strictly decreasing.
func fuseDated(first, dated []Hit) []Hit {
	top := first[0].Score
	if top <= 0 {
		return first
	}
	at := make(map[hitKey]int, len(first)+len(dated))
	out := make([]Hit, 0, len(first)+len(dated))
	for i, h := range first {
		at[keyOf(h)] = len(out)
		h.Score = 1 / float64(rrfK+i+1)
		out = append(out, h)
	}
	for j, h := range dated {
		s := min(1, h.Score/top) / float64(rrfK+j+1)
		if i, ok := at[keyOf(h)]; ok {
			out[i].Score += s
			continue
		}
		at[keyOf(h)] = len(out)
		h.Score = s
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	f := top / out[0].Score
	for i := range out {
		out[i].Score *= f
	}
	descend(out)
	return out
}

// cueRanges maps spans of time to the runs of iterations said in them,
// the current step left out: ascending, merged where they touch, at most
// maxCueRanges. A span that holds no iteration, or every one, is left out.
func (r *Recaller) cueRanges(ctx context.Context, run journal.Run, spans []span) ([][2]int, error) {
	last := run.Iterations - 1
	var out [][2]int
	for _, s := range spans {
		a, err := r.journal.FirstFrom(ctx, run.ID, s.from, last)
		if err != nil {
			return nil, err
		}
		b, err := r.journal.FirstFrom(ctx, run.ID, s.to, last)
		if err != nil {
			return nil, err
		}
		b--
		if a > b || a <= 1 && b >= last {
			continue
		}
		out = append(out, [2]int{a, b})
	}
	slices.SortFunc(out, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	merged := out[:0]
	for _, rg := range out {
		if n := len(merged); n > 0 && rg[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], rg[1])
			continue
		}
		merged = append(merged, rg)
	}
	if len(merged) > maxCueRanges {
		merged = merged[:maxCueRanges]
	}
	if len(merged) == 1 && merged[0][0] <= 1 && merged[0][1] >= last {
		return nil, nil
	}
	return merged, nil
}
