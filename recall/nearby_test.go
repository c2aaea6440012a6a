package recall

import "testing"

// TestNearbyCurrentStepLendsNothing: the step that asks matches its own
// words best; the turn before it must not rise for being its neighbour.
// Lent the current step's score, iteration 49 would sum to 11 and rank
// second; without it, it is last.
func TestNearbyCurrentStepLendsNothing(t *testing.T) {
	t.Parallel()
	hits := []Hit{
		{Kind: KindIteration, First: 50, Last: 50, Score: 10}, // the current step
		{Kind: KindIteration, First: 10, Last: 10, Score: 1.5},
		{Kind: KindIteration, First: 20, Last: 20, Score: 1.4},
		{Kind: KindIteration, First: 30, Last: 30, Score: 1.3},
		{Kind: KindIteration, First: 40, Last: 40, Score: 1.2},
		{Kind: KindIteration, First: 49, Last: 49, Score: 1},
	}
	got := nearby(hits, 2, 50)
	if got[len(got)-1].First != 49 {
		t.Errorf("iteration 49 ranks before others: %+v (it borrowed the current step's score)", got)
	}
}

// TestNearbyScoresStrictlyDecrease: hits whose ranks are swapped between
// the two rankings fuse to the same score; scores still decrease strictly
// down the result, so a store ordering by score keeps the order.
func TestNearbyScoresStrictlyDecrease(t *testing.T) {
	t.Parallel()
	// 10 is first by BM25 and second by its neighbourhood, 100 the other
	// way round (98 and 102 lend it their scores): both fuse to
	// 1/61 + 1/62.
	hits := []Hit{
		{Kind: KindIteration, First: 10, Last: 10, Score: 3},
		{Kind: KindIteration, First: 100, Last: 100, Score: 2.85},
		{Kind: KindIteration, First: 98, Last: 98, Score: 0.1},
		{Kind: KindIteration, First: 102, Last: 102, Score: 0.1},
	}
	got := nearby(hits, 2, 300)
	for i := 1; i < len(got); i++ {
		if got[i].Score >= got[i-1].Score {
			t.Errorf("score %d (%v) is not below score %d (%v): %+v", i, got[i].Score, i-1, got[i-1].Score, got)
		}
	}
}

// TestNearbyOffKeepsTheRanking: with no window, or too few hits to fuse,
// the hits come back as they went in.
func TestNearbyOffKeepsTheRanking(t *testing.T) {
	t.Parallel()
	hits := []Hit{
		{Kind: KindIteration, First: 3, Last: 3, Score: 3},
		{Kind: KindIteration, First: 9, Last: 9, Score: 2},
		{Kind: KindIteration, First: 10, Last: 10, Score: 1},
	}
	for _, w := range []int{0, -1} {
		got := nearby(hits, w, 100)
		for i := range hits {
			if got[i] != hits[i] {
				t.Fatalf("window %d changed hit %d: %+v", w, i, got[i])
			}
		}
	}
	if got := nearby(hits[:2], 2, 100); got[0] != hits[0] || got[1] != hits[1] {
		t.Errorf("two hits were reordered: %+v", got)
	}
}

// TestNearbyStretchOutranksALoneMatch: a turn whose neighbours match too
// rises over a lone turn that matched a little better; scores stay in
// order, highest first, on the best hit's scale.
func TestNearbyStretchOutranksALoneMatch(t *testing.T) {
	t.Parallel()
	hits := []Hit{
		{Kind: KindIteration, First: 20, Last: 20, Score: 5},
		{Kind: KindIteration, First: 121, Last: 121, Score: 4},
		{Kind: KindIteration, First: 122, Last: 122, Score: 3},
		{Kind: KindIteration, First: 120, Last: 120, Score: 2},
		{Kind: KindBlock, First: 200, Last: 240, Score: 1, Block: "b1"},
	}
	got := nearby(hits, 2, 300)
	if got[0].First != 121 {
		t.Errorf("best hit %d: want 121, in a stretch of three matches", got[0].First)
	}
	if got[0].Score != 5 {
		t.Errorf("best score %g: want the best plain score, 5", got[0].Score)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("scores out of order at %d: %g after %g", i, got[i].Score, got[i-1].Score)
		}
	}
	if got[len(got)-1].Kind != KindBlock {
		t.Errorf("the block, last by score and with no neighbours, moved: %+v", got)
	}
}

// TestNearbyLeavesIdentifierQueriesAlone: a query naming an identifier
// keeps BM25's order, where its exact matches come first; the same hits
// for a question in words are reordered.
func TestNearbyLeavesIdentifierQueriesAlone(t *testing.T) {
	t.Parallel()
	hits := []Hit{
		{Kind: KindIteration, First: 30, Last: 30, Score: 5},
		{Kind: KindIteration, First: 121, Last: 121, Score: 4},
		{Kind: KindIteration, First: 122, Last: 122, Score: 3},
		{Kind: KindIteration, First: 120, Last: 120, Score: 2},
	}
	if got := nearbyForWords(hits, []string{"data/cache_3d5a4.json"}, 2, 300); got[0].First != 30 || got[0].Score != 5 {
		t.Errorf("an identifier query was reordered: %+v", got)
	}
	if got := nearbyForWords(hits, nil, 2, 300); got[0].First != 121 {
		t.Errorf("a question in words kept BM25's order: %+v", got)
	}
}
