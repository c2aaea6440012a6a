package recall

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// inSpans reports whether v's terms meet terms: whether a query of terms
// matches a document holding v.
func inSpans(v int, terms []string) bool {
	for _, t := range spanTerms(v) {
		if slices.Contains(terms, t) {
			return true
		}
	}
	return false
}

// TestSpansTileTheRange checks spansOf against a plain comparison: a value
// matches the spans of [lo, hi] exactly when lo <= v <= hi, with no value
// matched twice (the spans tile the range without overlap).
func TestSpansTileTheRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type rng2 struct{ lo, hi int }
	cases := []rng2{{0, 0}, {1, 1}, {0, 15}, {1, 16}, {15, 17}, {16, 31}, {16, 255}, {255, 256}, {1, 10000}, {4095, 4097}, {9990, 10012}}
	for range 200 {
		lo := rng.IntN(20000)
		cases = append(cases, rng2{lo, lo + rng.IntN(3000)})
	}
	for _, c := range cases {
		terms := spansOf(c.lo, c.hi)
		if len(terms) == 0 {
			t.Fatalf("[%d, %d]: no spans", c.lo, c.hi)
		}
		// The fewest spans: at most two runs of spanBase-1 per level.
		if len(terms) > 2*(spanBase-1)*8 {
			t.Errorf("[%d, %d]: %d spans", c.lo, c.hi, len(terms))
		}
		for v := max(c.lo-300, 0); v <= c.hi+300; v++ {
			want := c.lo <= v && v <= c.hi
			n := 0
			for _, tv := range spanTerms(v) {
				if slices.Contains(terms, tv) {
					n++
				}
			}
			if (n > 0) != want || n > 1 {
				t.Fatalf("[%d, %d]: value %d matched %d spans of %v", c.lo, c.hi, v, n, terms)
			}
		}
	}
}

// TestSpansOpenAbove checks the range a before-filter without upTo asks
// for: up to spanTop, in few spans, with the largest values matched.
func TestSpansOpenAbove(t *testing.T) {
	terms := spansOf(370, spanTop)
	if len(terms) > 2*(spanBase-1)*8 {
		t.Errorf("%d spans", len(terms))
	}
	for _, v := range []int{370, 371, 1 << 20, 1<<28 + 5, spanTop} {
		if !inSpans(v, terms) {
			t.Errorf("%d not in [370, top]", v)
		}
	}
	for _, v := range []int{0, 1, 369} {
		if inSpans(v, terms) {
			t.Errorf("%d in [370, top]", v)
		}
	}
}

func TestSpanTermsOfSmallValues(t *testing.T) {
	if got := spanTerms(5); !slices.Equal(got, []string{"0:5"}) {
		t.Errorf("spanTerms(5) = %v", got)
	}
	if got := spanTerms(300); !slices.Equal(got, []string{"0:12c", "1:12", "2:1"}) {
		t.Errorf("spanTerms(300) = %v", got)
	}
}
