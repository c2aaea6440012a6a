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
		p := packer{e: e, room: room, focus: 1, texts: texts}
		for i := 1; i <= 100; i++ {
			r := recallRender{full: "x", fullTokens: 20, folded: 1}
			if i == 12 {
				r.fullTokens = long
			}
			texts[[2]int{i, i}] = r
			if more, err := p.offer(context.Background(), recall.Recall{First: i, Last: i}); err != nil || !more {
				break
			}
		}
		if !p.stopped {
			if _, err := p.drain(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.release(context.Background(), math.Inf(1)); err != nil {
			t.Fatal(err)
		}
		var taken []int
		for _, h := range p.c.hits {
			taken = append(taken, h.First)
		}
		return taken
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
