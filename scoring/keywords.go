package scoring

import (
	"cmp"
	"math"
	"slices"
)

// Keywords ranks the distinct terms of a document by TF-IDF and returns at
// most n of them, highest score first, ties broken by term in ascending byte
// order.
//
// doc is the document's bag of terms, normally from [Terms]. For a term, tf is
// its count in doc and
//
//	idf = ln((1+docs) / (1+df(term))) + 1
//
// where df reports in how many of the run's docs documents the term occurs.
// df is called once per distinct term; its answer is clamped to [0, docs] so
// that an inconsistent count can never make idf fall below 1. When docs <= 0
// or df is nil, idf is the constant 1 and df is not called, so terms rank by
// frequency alone. Empty terms are ignored, and n <= 0 yields nil.
func Keywords(doc []string, df func(term string) int, docs int, n int) []string {
	if n <= 0 || len(doc) == 0 {
		return nil
	}
	type scored struct {
		term  string
		tf    int
		score float64
	}
	index := make(map[string]int, len(doc))
	var terms []scored
	for _, t := range doc {
		if t == "" {
			continue
		}
		if i, ok := index[t]; ok {
			terms[i].tf++
			continue
		}
		index[t] = len(terms)
		terms = append(terms, scored{term: t, tf: 1})
	}
	if len(terms) == 0 {
		return nil
	}
	for i := range terms {
		idf := 1.0
		if docs > 0 && df != nil {
			d := min(max(df(terms[i].term), 0), docs)
			idf = math.Log(float64(1+docs)/float64(1+d)) + 1
		}
		terms[i].score = float64(terms[i].tf) * idf
	}
	slices.SortFunc(terms, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	out := make([]string, 0, min(n, len(terms)))
	for _, t := range terms[:min(n, len(terms))] {
		out = append(out, t.term)
	}
	return out
}
