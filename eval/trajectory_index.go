package eval

import (
	"math"
	"slices"
	"sort"
)

// BM25 parameters of the bm25-steps baseline: the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stepIndex holds the words of each step of a run in full (its journal
// text), for how rare an evidence term is among the steps before a probe,
// and for the bm25-steps baseline. Every figure is taken over a prefix of
// the run, so that a step is ranked knowing only the steps before it.
type stepIndex struct {
	// tf[i] counts the words of step i (0-based); length[i] is their
	// number, and before[n] the total length of the first n steps.
	tf     []map[string]int
	length []int
	before []int
	// postings lists, for each word, the steps holding it, ascending.
	postings map[string][]int
}

func newStepIndex(texts []string) *stepIndex {
	x := &stepIndex{postings: map[string][]int{}, before: make([]int, 1, len(texts)+1)}
	for i, text := range texts {
		ws := words(text)
		tf := make(map[string]int, len(ws))
		for _, w := range ws {
			if tf[w] == 0 {
				x.postings[w] = append(x.postings[w], i)
			}
			tf[w]++
		}
		x.tf = append(x.tf, tf)
		x.length = append(x.length, len(ws))
		x.before = append(x.before, x.before[i]+len(ws))
	}
	return x
}

// df counts the steps among the first n that hold w.
func (x *stepIndex) df(w string, n int) int {
	return sort.SearchInts(x.postings[w], n)
}

// rarest returns up to limit distinct words of terms, leaving out those in
// skip, ranked by how few of the first n steps hold them (fewest first),
// ties in order of appearance.
func (x *stepIndex) rarest(terms []string, skip map[string]bool, n, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range terms {
		if !skip[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	df := make(map[string]int, len(out))
	for _, w := range out {
		df[w] = x.df(w, n)
	}
	slices.SortStableFunc(out, func(a, b string) int { return df[a] - df[b] })
	return out[:min(limit, len(out))]
}

// rank is BM25 over the first n steps, with statistics from those steps
// only: the steps matching any query word, best first, ties newest first.
func (x *stepIndex) rank(query []string, n int) []int {
	if n == 0 {
		return nil
	}
	q := slices.Compact(slices.Sorted(slices.Values(query)))
	avg := float64(x.before[n]) / float64(n)
	if avg == 0 {
		return nil
	}
	score := map[int]float64{}
	for _, w := range q {
		steps := x.postings[w][:x.df(w, n)]
		df := float64(len(steps))
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		for _, i := range steps {
			tf := float64(x.tf[i][w])
			norm := bm25K1 * (1 - bm25B + bm25B*float64(x.length[i])/avg)
			score[i] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	out := make([]int, 0, len(score))
	for i := range score {
		out = append(out, i)
	}
	slices.SortFunc(out, func(a, b int) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return b - a
	})
	return out
}
