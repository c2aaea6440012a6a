package memory

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
)

// TestMoreHits: a fill that left room asks for as many hits as the room
// would hold at the tokens each took, a quarter more, at least twice as
// many as before, never past recall.MaxFillHits.
func TestMoreHits(t *testing.T) {
	for _, c := range []struct {
		limit, taken, used, room, want int
	}{
		{100, 100, 10000, 30000, 375},  // the room holds three times what was taken
		{100, 100, 20000, 30000, 200},  // at least twice as many
		{100, 0, 0, 30000, 200},        // nothing taken: twice as many
		{400, 400, 2000, 32000, 1600},  // bounded by recall.MaxFillHits
		{1000, 900, 9000, 30000, 1600}, // twice 1,000 is past the bound too
	} {
		if got := moreHits(c.limit, c.taken, c.used, c.room); got != c.want {
			t.Errorf("moreHits(%d, %d, %d, %d) = %d, want %d", c.limit, c.taken, c.used, c.room, got, c.want)
		}
	}
}

// TestALongHitWaitsItsDue: past the focus, a hit that costs more than
// longHit times the typical hit waits as if ranked at its rank times its
// cost over the typical one, so that a room too small for all the short
// hits ranked before that leaves it out; a hit within longHit times the
// typical keeps its rank.
func TestALongHitWaitsItsDue(t *testing.T) {
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Tokenizer: tok}
	// A hundred short hits, the twelfth of them of long tokens.
	pack := func(long, room int) []int {
		t.Helper()
		texts := make(map[[2]int]recallRender)
		for i := 1; i <= 100; i++ {
			r := recallRender{full: "x", fullTokens: 20, folded: 1}
			if i == 12 {
				r.fullTokens = long
			}
			texts[[2]int{i, i}] = r
		}
		p := packer{e: e, room: room, focus: 1, texts: texts}
		return packTaken(t, &p, 100)
	}
	// A short hit costs about 27 tokens with its heading; 200 is more
	// than three times that, under an eighth of the room, and due past
	// the eightieth short hit, which the room does not reach.
	got := pack(200, 1700)
	if slices.Contains(got, 12) {
		t.Errorf("the long hit ranked twelfth was taken before the short hits ranked before its due: %v", got)
	}
	if len(got) < 50 {
		t.Errorf("the fill took %d short hits; the room holds more: %v", len(got), got)
	}
	got = pack(60, 1700)
	if i := slices.Index(got, 12); i != 11 {
		t.Errorf("a hit twice the typical is at %d of the fill, want 11, its rank: %v", i, got)
	}
}

// TestAHitsShareFallsWithTheHitsTakenBeforeIt: past the focus, the k-th
// hit a fill takes may have the k-th of the room (at most a half, at
// least an eighth), so that a long answer ranked second is taken whole
// where the hits after it are short; a question that asks for a list
// keeps its third hit and on to an eighth.
func TestAHitsShareFallsWithTheHitsTakenBeforeIt(t *testing.T) {
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Tokenizer: tok}
	// Four hits in a room of 400 tokens, with focus 1: a short one, one
	// of 150 tokens (over an eighth and under a half of the room), one of
	// 60 (over an eighth and under a third) and one of 120 (over a
	// quarter and under a half; it would fit the room left). None is over
	// three times the median of the hits offered so far, itself included,
	// so none waits its due.
	pack := func(several bool) []int {
		t.Helper()
		texts := map[[2]int]recallRender{
			{1, 1}: {full: "x", fullTokens: 20, folded: 1},
			{2, 2}: {full: "x", fullTokens: 150, folded: 1},
			{3, 3}: {full: "x", fullTokens: 60, folded: 1},
			{4, 4}: {full: "x", fullTokens: 120, folded: 1},
		}
		p := packer{e: e, room: 400, focus: 1, several: several, texts: texts}
		return packTaken(t, &p, 4)
	}
	if got := pack(false); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("took %v, want [1 2 3]: the second hit may have half the room, the third a third, the fourth a quarter", got)
	}
	if got := pack(true); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("a list question took %v, want [1 2]: its third hit may have an eighth of the room", got)
	}
}

// packTaken offers p the hits of iterations 1 to n in turn, rendered
// already (p.texts), packs them as a fill does (fillHits) and returns the
// first iteration of each hit taken, in the order taken.
func packTaken(t *testing.T, p *packer, n int) []int {
	t.Helper()
	ctx := context.Background()
	for i := 1; i <= n; i++ {
		more, err := p.offer(ctx, recall.Recall{First: i, Last: i, Matched: [2]int{i, i}})
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	if _, err := p.settle(ctx); err != nil {
		t.Fatal(err)
	}
	if !p.stopped {
		if _, err := p.drain(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.release(ctx, math.Inf(1)); err != nil {
		t.Fatal(err)
	}
	var taken []int
	for _, h := range p.c.hits {
		taken = append(taken, h.First)
	}
	return taken
}
