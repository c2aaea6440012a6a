package recall

import "testing"

// TestFuseDatedWeighsByMatch: a turn of the time named that matches the
// question weakly does not ride the narrow search's first rank over the
// whole run's good matches; one that matches as well as they do rises to
// the top. The first ranking's best score is kept, and scores descend.
func TestFuseDatedWeighsByMatch(t *testing.T) {
	it := func(n int, score float64) Hit { return Hit{Kind: KindIteration, First: n, Last: n, Score: score} }
	first := []Hit{it(1, 10), it(2, 9), it(3, 8)}
	order := func(hits []Hit) []int {
		var out []int
		for _, h := range hits {
			out = append(out, h.First)
		}
		return out
	}
	// A weak match said then (a tenth of the best score), first in its
	// narrow search: it stays below the run's good matches.
	got := fuseDated(first, []Hit{it(9, 1)})
	if o := order(got); len(o) != 4 || o[3] != 9 {
		t.Errorf("a weak dated hit ranks %v, want it last", o)
	}
	// The third hit, said then and matching nearly as well as the best:
	// it rises to the top.
	got = fuseDated(first, []Hit{it(3, 8), it(9, 1)})
	if o := order(got); o[0] != 3 {
		t.Errorf("a good dated hit ranks %v, want it first", o)
	}
	if got[0].Score != 10 {
		t.Errorf("the best fused score is %g, want the first ranking's best, 10", got[0].Score)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score >= got[i-1].Score {
			t.Errorf("scores do not descend: %v", got)
		}
	}
}
