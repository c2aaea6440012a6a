package scoring

import (
	"math"
	"slices"
	"testing"
)

func TestKeywords(t *testing.T) {
	t.Parallel()
	// df over a 9-document run: "parser" is everywhere, "eviction" rare.
	runDF := map[string]int{"parser": 9, "cache": 4, "eviction": 1, "lru": 1, "config": 2}
	df := func(term string) int { return runDF[term] }
	tests := []struct {
		name string
		doc  []string
		df   func(string) int
		docs int
		n    int
		want []string
	}{
		{"empty doc", nil, df, 9, 5, nil},
		{"n zero", []string{"parser"}, df, 9, 0, nil},
		{"n negative", []string{"parser"}, df, 9, -1, nil},
		{
			// tf·idf: parser 3·(ln(10/10)+1)=3, cache 2·(ln(10/5)+1)=3.39,
			// eviction 1·(ln(10/2)+1)=2.61, lru = eviction, config 1·(ln(10/3)+1)=2.20.
			"rare terms outrank frequent common ones",
			[]string{"parser", "cache", "parser", "eviction", "parser", "cache", "lru", "config"},
			df, 9, 10,
			[]string{"cache", "parser", "eviction", "lru", "config"},
		},
		{
			"at most n, ties by term",
			[]string{"parser", "cache", "parser", "eviction", "parser", "cache", "lru", "config"},
			df, 9, 3,
			[]string{"cache", "parser", "eviction"},
		},
		{
			"docs zero: constant idf, rank by frequency then term",
			[]string{"zeta", "alpha", "zeta", "beta", "alpha", "zeta"},
			func(string) int { panic("df must not be called when docs is 0") }, 0, 10,
			[]string{"zeta", "alpha", "beta"},
		},
		{
			"nil df: constant idf",
			[]string{"b", "a", "c", "a"},
			nil, 100, 10,
			[]string{"a", "b", "c"},
		},
		{
			"df above docs is clamped, never below idf 1",
			[]string{"x", "y", "y"},
			func(term string) int {
				if term == "x" {
					return 1000
				}
				return 10
			}, 10, 10,
			[]string{"y", "x"},
		},
		{"empty terms ignored", []string{"", "a", ""}, nil, 0, 10, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Keywords(tt.doc, tt.df, tt.docs, tt.n)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Keywords = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKeywordsIDFFormula(t *testing.T) {
	t.Parallel()
	// With tf equal, a term with df=d beats one with df=d+1 and loses to one
	// with df=d-1; with tf 2 vs 1 the exact crossover follows the formula.
	idf := func(docs, df int) float64 { return math.Log(float64(1+docs)/float64(1+df)) + 1 }
	// "a" appears twice with df 5, "b" once with df 0, docs 20:
	// 2·idf(20,5) = 2·(ln(21/6)+1) = 4.505; 1·idf(20,0) = ln(21)+1 = 4.045.
	if !(2*idf(20, 5) > idf(20, 0)) {
		t.Fatal("test premise wrong")
	}
	df := map[string]int{"a": 5, "b": 0}
	got := Keywords([]string{"a", "b", "a"}, func(s string) int { return df[s] }, 20, 2)
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("Keywords = %q, want %q", got, want)
	}
	// Raise a's df to 15: 2·(ln(21/16)+1) = 2.544 < 4.045, so b wins.
	df["a"] = 15
	got = Keywords([]string{"a", "b", "a"}, func(s string) int { return df[s] }, 20, 2)
	if want := []string{"b", "a"}; !slices.Equal(got, want) {
		t.Errorf("Keywords = %q, want %q", got, want)
	}
}

func TestKeywordsCallsDFOncePerTerm(t *testing.T) {
	t.Parallel()
	calls := map[string]int{}
	Keywords([]string{"a", "b", "a", "a", "c", "b"}, func(s string) int { calls[s]++; return 1 }, 5, 10)
	for term, n := range calls {
		if n != 1 {
			t.Errorf("df(%q) called %d times, want 1", term, n)
		}
	}
	if len(calls) != 3 {
		t.Errorf("df called for %d distinct terms, want 3", len(calls))
	}
}
