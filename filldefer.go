package memory

import (
	"context"

	"github.com/delta-memory/delta-memory/recall"
)

// A long hit past a fill's typical ones waits until the hits ranked
// before its due have been taken (packer.take), and when the room fills
// first, it is never taken: rendering it was for nothing. Over a run of
// long tool outputs most of a fill's rendering went there (a fill of 466
// hits rendered 640, 110,000 tokens for a room of 31,000). So a hit whose
// notes say it cannot cost less than a long hit's threshold waits
// unrendered, at the due of the least it can cost (leastCost), and is
// rendered only when that comes (renderDue), then waits again at the due
// of what it costs. A due reckoned from less than the cost is never later
// than the true one, so the hits are considered in the order, and with
// the costs, they would have been had all been rendered first, as long as
// the least cost is no more than the cost (leastCost says when it may be).

// deferLong returns the hits of queue to render now, and marks in
// p.deferred those that will wait unrendered, with the least each costs.
// The queue's hits are ranked from p.seen on. Only hits past the focus and
// the typical hits wait, once those have set the typical cost, and only
// those not rendered yet.
func (p *packer) deferLong(queue []recall.Recall) []recall.Recall {
	typ := median(p.early)
	if p.e.fillRenderAll || p.around == nil || len(p.early) < typicalHits || typ <= 0 {
		return queue
	}
	now := queue[:0:0]
	for j, h := range queue {
		// A hit an earlier round rendered is taken as rendered.
		_, rendered := p.texts[[2]int{h.First, h.Last}]
		if rank := p.seen + j; !rendered && rank >= max(p.focus, typicalHits) {
			if lb := p.leastCost(h); lb > longHit*typ {
				if p.deferred == nil {
					p.deferred = map[[2]int]int{}
				}
				p.deferred[[2]int{h.First, h.Last}] = lb
				continue
			}
		}
		now = append(now, h)
	}
	return now
}

// leastCost is the least hit h can cost a fill once rendered, from what
// the notes say its iterations take in full (recall.Around.Tokens, under
// Working's output bound), or 0 when the notes were not read or the range
// is too long to show in full. An iteration within the recall's own
// output bound renders as its note did, less at most its heading (a lone
// one, or one that only speaks): half its tokens is safe. One past it has
// its output cut to a head and a tail of about that bound, cut at line
// ends: a quarter of the bound. Lines longer than that can keep less, and
// the hit is then considered a little after its due; the room holds
// either way.
func (p *packer) leastCost(h recall.Recall) int {
	if h.Last-h.First+1 > maxFullRange {
		return 0
	}
	bound := p.e.recallOutputCap(h.First == h.Last, true)
	least := 0
	for n := h.First; n <= h.Last; n++ {
		t, ok := p.around.Tokens(n)
		switch {
		case !ok:
			return 0
		case t <= bound:
			least += t / 2
		default:
			least += bound / 4
		}
	}
	return least
}

// wait takes hit h, not rendered, that costs at least lb: it waits at the
// due of lb, and the hits due before its rank are released.
func (p *packer) wait(ctx context.Context, h recall.Recall, lb int) (bool, error) {
	i := p.seen
	p.seen++
	typ := median(p.early)
	p.insert(waiting{due: float64(i+1) * float64(lb) / float64(typ), h: h, later: true, rank: i, first: len(p.c.hits) == 0})
	return p.release(ctx, float64(i+1))
}

// renderDue renders, in one batch, the waiting hits not rendered yet that
// are due before rank, and puts each back at the due of what it costs.
func (p *packer) renderDue(ctx context.Context, rank float64) error {
	var due, rest []waiting
	for _, w := range p.waiting {
		if w.later && w.due < rank {
			due = append(due, w)
		} else {
			rest = append(rest, w)
		}
	}
	ranges := make([][2]int, len(due))
	for i, w := range due {
		ranges[i] = [2]int{w.h.First, w.h.Last}
	}
	rts, err := p.e.recallTexts(ctx, p.run, ranges, true, false, true)
	if err != nil {
		return err
	}
	p.waiting = rest
	typ := median(p.early)
	for i, w := range due {
		p.texts[ranges[i]] = rts[i]
		w.rt, w.cost, w.later = rts[i], hitCost(p.e.Tokenizer, w.h, rts[i], w.first), false
		w.due = float64(w.rank+1) * float64(w.cost) / float64(typ)
		p.insert(w)
	}
	return nil
}
