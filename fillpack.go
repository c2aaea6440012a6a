package memory

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// A fill is the recall of a question to memory: it takes as many hits as
// the window has room for, ranked, rendered and packed a batch at a time
// (fillrender.go renders, filldefer.go puts long hits off).

// fill finds the hits of a recall with no limit: best first, as many as
// the window can show in full when the current step asks memory
// (window.Context.FocusRoom), skipping a hit too long for what is left so
// that one long range does not keep the shorter ones after it out. It
// returns the hits, their texts and the room they were fitted to.
func (e *Engine) fill(ctx context.Context, run journal.Run, q recall.Query) ([]recall.Recall, []recallRender, int, error) {
	cw, err := e.Context(ctx, run, ContextOptions{})
	if err != nil {
		return nil, nil, 0, err
	}
	// A recall with no limit is the current step asking memory a
	// question: the window it leaves gives Retrieved the room of the
	// summaries and older turns (window.Options.Focus), at render time,
	// so no fold is needed for it.
	share := e.Config.RetrievedBudget()
	room := max(share, cw.FocusRoom())
	c, err := e.fillHits(ctx, run, q, room)
	if err != nil {
		return nil, nil, 0, err
	}
	return c.hits, c.texts, room, nil
}

// candidates are the hits of a fill fitted to some room, with their texts
// and what each costs the window; used is what they add up to.
type candidates struct {
	hits  []recall.Recall
	texts []recallRender
	costs []int
	used  int
	// rendered counts the ranges the fill rendered, taken or not.
	rendered int
}

// maxSkips is how many hits in a row too long for what is left a fill
// passes over before it stops looking.
const maxSkips = 8

// maxHitShare bounds a hit past a fill's focus hits, once as many hits
// were taken, to this fraction of the room (1/maxHitShare; packer.share
// gives the hits before it more): a question's room holds tens of turns,
// and one hit that would take more than an eighth of it (a long answer, a
// long tool output) pushes out several hits ranked near it, each as likely
// to hold what was asked. The best hits (recall focus) may take more
// (maxFocusShare).
const maxHitShare = 8

// maxFocusShare bounds each of the best hits after the first to this
// fraction of the room (1/maxFocusShare): past half, one hit would take
// more than all the others together. Under a small budget, a long answer
// ranked second took the room of the next best hits, short turns that
// held what was asked (at 1,000 tokens, LongMemEval's evidence 0.630 ->
// 0.685, as bm25-turns takes them; LoCoMo's turns are never that long).
// The first hit is taken however long: as the turns it matched, or its
// lines, when it does not fit (packer.first).
const maxFocusShare = 2

// fillHits ranks the hits of a fill (recall.Query.Fill) and keeps, best
// first, those that fit room, skipping one too long for what is left, so
// that one long range does not keep the shorter ones after it out, and,
// past the focus hits, one longer than its share of the room (packer.share:
// the k-th of it for the k-th hit, at least an eighth), and among them
// after the first, one longer than half (maxFocusShare).
// It renders hits a batch at a time (packer.batch), until the room is full.
//
// The room decides how many hits a fill takes, not a count: it asks the
// recall for recall MaxHits hits, and when all of them fit with room to
// spare (short turns under a large budget), it asks again for as many as
// the room would hold (moreHits). A run of long iterations fills its room
// in the first round, and pays for one.
func (e *Engine) fillHits(ctx context.Context, run journal.Run, q recall.Query, room int) (candidates, error) {
	dry := q
	dry.DryRun, dry.Limit, dry.Fill, dry.Around = true, e.Recall.Config().MaxHits, true, new(recall.Around)
	texts := make(map[[2]int]recallRender)
	for {
		p := packer{e: e, run: run, room: room, focus: e.Recall.Config().FocusFor(dry), several: recall.AsksForSeveral(dry.Text()), texts: texts, around: dry.Around}
		err := e.Recall.Each(ctx, run, dry, func(h recall.Recall) (bool, error) { return p.offer(ctx, h) })
		// The batch still rendering is taken (or waited for) before
		// anything else, error or not.
		if _, serr := p.settle(ctx); err == nil {
			err = serr
		}
		if err != nil {
			return candidates{}, err
		}
		if !p.stopped {
			if _, err := p.drain(ctx); err != nil {
				return candidates{}, err
			}
		}
		if _, err := p.release(ctx, math.Inf(1)); err != nil {
			return candidates{}, err
		}
		if p.full() || p.seen < dry.Limit || dry.Limit >= recall.MaxFillHits {
			p.c.rendered = len(texts)
			return p.c, nil
		}
		dry.Limit = moreHits(dry.Limit, len(p.c.hits), p.c.used, room)
	}
}

// moreHits is how many hits a fill asks for next, when limit hits, of
// which it took taken for used tokens, left room to spare: as many as the
// room would hold at the tokens a hit took so far, and a quarter more for
// the hits that will not fit; at least twice as many as before, at most
// recall.MaxFillHits.
func moreHits(limit, taken, used, room int) int {
	want := 2 * limit
	if taken > 0 && used > 0 {
		want = max(want, taken*room/used*5/4)
	}
	return min(want, recall.MaxFillHits)
}

// packer keeps, best first, the hits of a fill that fit its room
// (fillHits), as the recall offers them.
type packer struct {
	e           *Engine
	run         journal.Run
	room, focus int
	// several says that the question is answered by several turns
	// (recall.AsksForSeveral: a list, a judgment; share).
	several bool
	// texts holds the hits' renderings by range, from an earlier round
	// of the same fill; offer adds those it makes.
	texts map[[2]int]recallRender
	c     candidates
	// seen counts the hits offered, skips those in a row too long for
	// what is left.
	seen, skips int
	// early holds the costs of the first typicalHits hits offered;
	// waiting, the long hits put off (longHit), soonest due first.
	early   []int
	waiting []waiting
	// queue holds the hits offered and not yet rendered (drain);
	// pending, a batch rendering while the recall ranks the hits after
	// it (render); stopped says that taking stopped for want of room.
	queue   []recall.Recall
	pending *pendingBatch
	stopped bool
	batches int
	// around is what the recall read of its hits' iterations; deferred
	// holds the hits left unrendered until due (filldefer.go), with the
	// least each can cost.
	around   *recall.Around
	deferred map[[2]int]int
}

// maxFillBatch bounds the hits a fill renders at once (packer.batch). A
// batch past the hit that fills the room is rendered for nothing, so the
// batches start small and end small.
const maxFillBatch = 64

// waiting is a long hit a fill put off until the hits ranked before due
// were offered.
type waiting struct {
	due  float64
	h    recall.Recall
	rt   recallRender
	cost int
	// A hit not rendered yet (later) waits at the due of the least it
	// can cost; rank is its place among the hits offered, first whether
	// it was offered before any hit was taken.
	later bool
	rank  int
	first bool
}

// A hit past the focus that costs more than longHit times the typical hit
// of a fill (the median cost of its first typicalHits) waits as if ranked
// at its rank times its cost over the typical one: a hit's chance of
// holding what was asked falls with its rank, not with its length, so a
// long answer ranked tenth is worth its room only once the short hits
// ranked before its due have had theirs. Within longHit times the
// typical, the rank alone orders the hits.
const (
	longHit     = 3
	typicalHits = 10
)

// full reports whether packing stops for want of room rather than of hits.
func (p *packer) full() bool { return p.room-p.c.used < 16 || p.skips >= maxSkips }

// offer queues hit h, and when a batch is queued takes the hits of the
// batch before it that fit (settle) and starts rendering this one
// (render); it reports whether to offer more.
func (p *packer) offer(ctx context.Context, h recall.Recall) (bool, error) {
	p.queue = append(p.queue, h)
	if len(p.queue) < p.batch() {
		return true, nil
	}
	p.batches++
	if p.e.fillInTurn {
		return p.drain(ctx)
	}
	if more, err := p.settle(ctx); err != nil || !more {
		return more, err
	}
	p.render(ctx)
	return true, nil
}

// batch is how many hits to queue before rendering them: the focus
// first, then twice as many each time, up to maxFillBatch, and no more
// than a quarter over what the room left holds at the typical hit's cost.
func (p *packer) batch() int {
	n := min(maxFillBatch, max(p.focus, 1)<<min(p.batches, 8))
	if typ := median(p.early); typ > 0 {
		n = min(n, max(4, (p.room-p.c.used)/typ*5/4+1))
	}
	return n
}

// drain renders the queued hits in one batch (recallTexts) and takes them
// in turn (take) until the room is full; it reports whether to offer more.
func (p *packer) drain(ctx context.Context) (bool, error) {
	queue := p.queue
	p.queue = nil
	if ranges := p.unrendered(p.deferLong(queue)); len(ranges) > 0 {
		rts, err := p.e.recallTexts(ctx, p.run, ranges, true, false, true)
		if err != nil {
			return false, err
		}
		for i, k := range ranges {
			p.texts[k] = rts[i]
		}
	}
	return p.takeAll(ctx, queue)
}

// takeAll takes hits in turn, rendered already (texts), until the room is
// full, and reports whether to take more.
func (p *packer) takeAll(ctx context.Context, hits []recall.Recall) (bool, error) {
	for _, h := range hits {
		k := [2]int{h.First, h.Last}
		rt, ok := p.texts[k]
		var more bool
		var err error
		if lb, later := p.deferred[k]; later && !ok {
			more, err = p.wait(ctx, h, lb)
		} else {
			more, err = p.take(ctx, h, rt)
		}
		if err != nil {
			return false, err
		}
		if !more {
			p.stopped = true
			return false, nil
		}
	}
	return true, nil
}

// take takes hit h, rendered as rt, if it fits, and the long hits due
// before it, and reports whether to take more.
func (p *packer) take(ctx context.Context, h recall.Recall, rt recallRender) (bool, error) {
	i := p.seen
	p.seen++
	cost := hitCost(p.e.Tokenizer, h, rt, len(p.c.hits) == 0)
	if i < typicalHits {
		p.early = append(p.early, cost)
	}
	if typ := median(p.early); i >= p.focus && cost > longHit*typ {
		p.insert(waiting{due: float64(i+1) * float64(cost) / float64(typ), h: h, rt: rt, cost: cost})
		return p.release(ctx, float64(i+1))
	}
	if more, err := p.release(ctx, float64(i+1)); err != nil || !more {
		return false, err
	}
	if err := p.consider(ctx, h, rt, cost, i >= p.focus); err != nil {
		return false, err
	}
	return !p.full(), nil
}

// insert puts w among the waiting hits, before those due no sooner.
func (p *packer) insert(w waiting) {
	at, _ := slices.BinarySearchFunc(p.waiting, w.due, func(a waiting, due float64) int { return cmp.Compare(a.due, due) })
	p.waiting = slices.Insert(p.waiting, at, w)
}

// hitCost is what hit h, rendered as rt, takes of a fill's room: its text
// (in full, else its lines), the blank line after it, and a heading, which
// a hit after the first does without when its text names its iterations
// (window.Recalled.Bare). It may fall short by a heading where the window
// shows another recall between two hits, or a hit refreshes an older
// recall of another query: the window's fitter then shows the last hit as
// lines, or not at all, and the budget holds.
func hitCost(tok scoring.Tokenizer, h recall.Recall, rt recallRender, first bool) int {
	text, tokens := rt.full, rt.fullTokens
	if tokens == 0 {
		text, tokens = rt.lines, rt.linesTokens
	}
	if !first && window.SelfNamed(text) {
		return tokens + 2
	}
	name := sameRecallName(h)
	if first {
		name = recallName(h)
	}
	return tokens + tok.Count(name) + 4
}

// release considers the waiting hits due before rank (all of them with
// math.Inf(1)), and reports whether to offer more. A hit not rendered yet
// is rendered when the least it can cost makes it due (renderDue), and
// waits again at the due of what it costs.
func (p *packer) release(ctx context.Context, rank float64) (bool, error) {
	for len(p.waiting) > 0 && p.waiting[0].due < rank && !p.full() {
		if p.waiting[0].later {
			if err := p.renderDue(ctx, rank); err != nil {
				return false, err
			}
			continue
		}
		w := p.waiting[0]
		p.waiting = p.waiting[1:]
		if err := p.consider(ctx, w.h, w.rt, w.cost, true); err != nil {
			return false, err
		}
	}
	return !p.full(), nil
}

// consider takes hit h if it fits, and if it takes no more than its share
// of the room, else as the iterations it matched alone (alone): past the
// focus (bounded) its share (packer.share), among the best hits after the
// first a half (maxFocusShare).
func (p *packer) consider(ctx context.Context, h recall.Recall, rt recallRender, cost int, bounded bool) error {
	switch {
	case len(p.c.hits) == 0 && cost > p.room:
		return p.first(ctx, h, rt)
	case len(p.c.hits) > 0 && p.c.used+cost > p.room:
		p.skips++
	case bounded && cost > p.share():
		// one long hit past the best would take the room of several
		return p.alone(ctx, h, p.share())
	case len(p.c.hits) > 0 && cost > p.room/maxFocusShare:
		// one of the best would take more than all the others
		return p.alone(ctx, h, p.room/maxFocusShare)
	default:
		p.add(h, rt, cost)
	}
	return nil
}

// alone takes hit h, which costs more than share, as the iterations it
// matched without the other half of their exchange (recall's exchange.go)
// or their context, when those fit the share and the room. The share
// bounds what one hit takes, so that a long answer does not push out
// several hits ranked near it; when it is the half a hit brings that makes
// it long, the turn that matched is a hit like the others, and the half is
// context the room cannot spare. Under a small budget that is most
// exchanges: at 1,000 tokens an eighth of the room is about two turns of
// a conversation.
func (p *packer) alone(ctx context.Context, h recall.Recall, share int) error {
	if h.Matched == [2]int{h.First, h.Last} {
		return nil
	}
	n := h
	n.First, n.Last = h.Matched[0], h.Matched[1]
	k := [2]int{n.First, n.Last}
	rt, ok := p.texts[k]
	if !ok {
		rts, err := p.e.recallTexts(ctx, p.run, [][2]int{k}, true, false, true)
		if err != nil {
			return err
		}
		rt = rts[0]
		p.texts[k] = rt
	}
	cost := hitCost(p.e.Tokenizer, n, rt, len(p.c.hits) == 0)
	if cost > share || len(p.c.hits) > 0 && p.c.used+cost > p.room {
		return nil
	}
	n.Visible = h.Visible || p.around != nil && p.around.InFull(n.First, n.Last)
	p.add(n, rt, cost)
	return nil
}

// first takes the best hit of a fill, h, whose text in full (rt) does not
// fit the room: as the iterations it matched, in full, when those fit, else
// as its lines, which is how the window shows a recall too long for its
// room. It is charged what the window will show, so that the room its full
// text would have taken goes to the hits after it: charged in full, a
// first hit longer than the room left none, and the window gave what its
// lines left to the turns before the question instead.
func (p *packer) first(ctx context.Context, h recall.Recall, rt recallRender) error {
	if err := p.alone(ctx, h, p.room); err != nil || len(p.c.hits) > 0 {
		return err
	}
	lines := rt
	lines.full, lines.fullTokens = "", 0
	p.add(h, rt, hitCost(p.e.Tokenizer, h, lines, true))
	return nil
}

// share is the most a hit past the focus may take of the room, as the
// k-th hit taken: the k-th of the room, never more than half
// (maxFocusShare), and never less than an eighth (maxHitShare, from the
// eighth hit on). The chance that a hit holds what was asked falls with
// its rank, about as 1/k (the weight reciprocal-rank fusion gives it), so
// the room a hit may risk falls with it: a 400-token answer taken second
// may have half of a 1,000-token room, one taken seventh a seventh. A
// question answered by several turns (recall.AsksForSeveral: a list, a
// judgment) spreads them over the run, each as likely as the next: past
// its second hit each keeps the eighth, so that long turns ranked third
// or fourth do not take the room of the ones after them.
func (p *packer) share() int {
	k := len(p.c.hits) + 1
	if p.several && k > 2 {
		k = maxHitShare
	}
	return p.room / min(max(k, maxFocusShare), maxHitShare)
}

// add takes hit h, rendered as rt, for cost tokens of the room.
func (p *packer) add(h recall.Recall, rt recallRender, cost int) {
	p.skips = 0
	p.c.hits, p.c.texts, p.c.costs = append(p.c.hits, h), append(p.c.texts, rt), append(p.c.costs, cost)
	p.c.used += cost
}

// median returns the median of costs (the upper one of an even count), 0
// for none.
func median(costs []int) int {
	if len(costs) == 0 {
		return 0
	}
	s := slices.Clone(costs)
	slices.Sort(s)
	return s[len(s)/2]
}
