package recall

import (
	"math"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Iteration numbers are indexed as span terms, not as bleve numeric
// fields. A numeric field indexes sixteen prefix terms per value (a 64-bit
// value, four bits a step), and with two of them per document that was a
// quarter of an import's indexing time. A span term names an aligned span
// of spanBase^level numbers: "<level>:<n in hex>" holds every value v with
// v >> (spanBits*level) == n. A value is indexed at level 0 and at each
// level whose n is not zero (iteration numbers are small, so most
// documents get three to five terms), and a range is the disjunction of
// the fewest spans that tile it exactly.
const (
	spanBits = 4
	spanBase = 1 << spanBits
	// spanTop bounds every indexed value: span levels stop below it.
	spanTop = math.MaxInt32
)

// spanTerm names the span of level holding v.
func spanTerm(level, v int) string {
	return strconv.Itoa(level) + ":" + strconv.FormatInt(int64(v>>(spanBits*level)), 16)
}

// spanTerms are the index terms of v: its level-0 term, and the term of
// each higher level that does not hold 0.
func spanTerms(v int) []string {
	v = min(max(v, 0), spanTop)
	out := []string{spanTerm(0, v)}
	for level := 1; v>>(spanBits*level) > 0; level++ {
		out = append(out, spanTerm(level, v))
	}
	return out
}

// spansOf returns the terms of the fewest spans that tile [lo, hi] (both
// clamped to [0, spanTop]). A span of level > 0 is used only where its n
// is not 0, since values below spanBase^level are not indexed at it.
func spansOf(lo, hi int) []string {
	lo, hi = max(lo, 0), min(hi, spanTop)
	var out []string
	for x := lo; x <= hi; {
		level := 0
		for {
			next := level + 1
			size := 1 << (spanBits * next)
			if next*spanBits >= 31 || x%size != 0 || x < size || x > hi-size+1 {
				break
			}
			level = next
		}
		out = append(out, spanTerm(level, x))
		step := 1 << (spanBits * level)
		if x > hi-step { // the last span reaches hi (and x+step may overflow)
			break
		}
		x += step
	}
	return out
}

// spanQuery matches documents whose field holds a value in [lo, hi]; hi <=
// 0 leaves the range open above.
func spanQuery(field string, lo, hi int) query.Query {
	if hi <= 0 {
		hi = spanTop
	}
	terms := spansOf(lo, hi)
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := bleve.NewTermQuery(t)
		tq.SetField(field)
		qs[i] = tq
	}
	return bleve.NewDisjunctionQuery(qs...)
}
