package eval

import (
	"math"
	"slices"
	"testing"
)

func TestDedup(t *testing.T) {
	t.Parallel()
	got := Dedup([]string{"s2", "s2", "s1", "s3", "s1"})
	if want := []string{"s2", "s1", "s3"}; !slices.Equal(got, want) {
		t.Fatalf("Dedup = %v, want %v", got, want)
	}
}

// The cases are worked out by hand from the definitions in LongMemEval's
// src/retrieval/eval_utils.py: dcg = rel[0] + sum(rel[i] / log2(i+1)) over
// 0-based i >= 1, and the ideal ranking puts every relevant id first.
func TestRankingMetrics(t *testing.T) {
	t.Parallel()
	ranked := []string{"a", "b", "c", "d", "e", "f"}
	cases := []struct {
		name              string
		relevant          []string
		k                 int
		all, any, ndcgAny float64
	}{
		{"one relevant at rank 1", []string{"a"}, 5, 1, 1, 1},
		// ideal 1; actual 1/log2(2) = 1: rank 2 is not discounted either.
		{"one relevant at rank 2", []string{"b"}, 5, 1, 1, 1},
		// actual 1/log2(3) = 0.6309; ideal 1.
		{"one relevant at rank 3", []string{"c"}, 5, 1, 1, 1 / math.Log2(3)},
		// actual 1/log2(2) + 1/log2(4) = 1.5; ideal 1 + 1 = 2.
		{"two relevant at ranks 2 and 4", []string{"b", "d"}, 5, 1, 1, 0.75},
		// one of two within the first 5: all is 0, any is 1; actual 1/log2(3), ideal 2.
		{"one of two past k", []string{"c", "f"}, 5, 0, 1, 1 / math.Log2(3) / 2},
		{"none within k", []string{"f"}, 5, 0, 0, 0},
		{"not ranked at all", []string{"z"}, 10, 0, 0, 0},
		// k past the ranking: ranks 1 and 6 count; ideal 1 + 1.
		{"k past the end", []string{"a", "f"}, 10, 1, 1, (1 + 1/math.Log2(6)) / 2},
		{"nothing relevant", nil, 5, 0, 0, 0},
	}
	for _, c := range cases {
		if got := RecallAll(ranked, c.relevant, c.k); got != c.all {
			t.Errorf("%s: RecallAll = %v, want %v", c.name, got, c.all)
		}
		if got := RecallAny(ranked, c.relevant, c.k); got != c.any {
			t.Errorf("%s: RecallAny = %v, want %v", c.name, got, c.any)
		}
		if got := NDCGAny(ranked, c.relevant, c.k); math.Abs(got-c.ndcgAny) > 1e-12 {
			t.Errorf("%s: NDCGAny = %v, want %v", c.name, got, c.ndcgAny)
		}
	}
}
