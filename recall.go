package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// Bounds on what one recall puts before the window's fitter, so that a
// recall of a long chapter costs the window what it can show, not what
// the chapter holds.
const (
	// maxOffered is how many active recalls are offered to the Retrieved
	// partition of a window laid out in the run's timeline; the rest are
	// named in show, not rendered. It leaves room for a recall of
	// recall.Config.MaxHits hits and a few older ones. A window focused on
	// a question offers up to recall.MaxFillHits: a fill takes as many
	// hits as that window has room for.
	maxOffered = 128
	// maxFullRange is the longest range offered in full (L0).
	maxFullRange = 8
	// maxLines is the most L1 lines a recall offers.
	maxLines = 40
)

// focus reports whether the current step asks memory a question: an
// explicit recall was made (or refreshed) at the newest iteration.
func focus(active []recall.Recall, now int) bool {
	for _, r := range active {
		if r.Reason == recall.ReasonExplicit && r.Since == now {
			return true
		}
	}
	return false
}

// recalled renders the recalls the window may show, reports whether the
// window is to focus on them (window.Options.Focus), and, when not, from
// which iteration its timeline is laid out (window.Options.LaidOut).
//
// A window focused on a question gets the active recalls, most wanted
// first; iterations Working shows in full are rendered too, and the window
// leaves them out of Working. Any other window lays its recalls out in the
// run's timeline (window.Recalled.Since): it gets the recalls that have
// not expired, and those that expired since the last fold or the last
// multiple of four TTLs (recall.Config.FadeFrom), most recently made
// first, each rendered whole whatever the others take, so that how a
// recall shows never depends on the calls after it. Iterations shown in
// full in Working are left out.
func (e *Engine) recalled(ctx context.Context, run journal.Run, keep bool) (recalls []window.Recalled, focused bool, laidOut int, err error) {
	if run.Iterations == 0 {
		return nil, false, 0, nil
	}
	active, err := e.Recall.Active(ctx, run.ID, run.Iterations)
	if err != nil {
		return nil, false, 0, err
	}
	focused = focus(active, run.Iterations)
	from := 0
	var held map[int]recall.Recall
	if !focused {
		lastFold, err := e.Fold.LastFold(ctx, run.ID)
		if err != nil {
			return nil, false, 0, err
		}
		from = e.Recall.Config().FadeFrom(run.Iterations, lastFold)
		if active, err = e.Recall.Lingering(ctx, run.ID, run.Iterations, from, maxOffered); err != nil {
			return nil, false, 0, err
		}
		held = heldBy(active)
	}
	offered := maxOffered
	if focused {
		// A fill may have recorded more hits than a timeline offers: the
		// focused window renders them only while they could fit.
		offered = max(maxOffered, recall.MaxFillHits)
	}
	if len(active) > offered {
		active = active[:offered]
	}
	out := make([]window.Recalled, 0, len(active))
	// A focused window renders in full only while what was rendered could
	// still fit: the fitter shows the most wanted first, so text past what
	// the Retrieved partition may take (its share and what the others
	// leave) would be counted and thrown away. The bound is the whole
	// budget: Static may need far less than its share, and a window
	// focused on a question gives Retrieved all that the others leave.
	room := e.Config.Budget
	var prev recall.Recall
	var texts []recallRender
	batchAt, spent := 0, 0
	for i, r := range active {
		if i == batchAt+len(texts) {
			// Rendered a batch at a time (recallTexts); a text in full
			// past the room is dropped below, as if not rendered.
			batchAt = i
			n := maxFillBatch
			if focused && room > 0 {
				// No further than the room is likely to hold: rendering
				// in full past it is for nothing, and keeps renderings
				// the window does not show. Past the room, the lines
				// alone are rendered, a full batch at a time.
				typical := max(1, spent/max(1, i))
				n = min(n, max(4, room/typical*5/4+1))
			}
			batch := active[i:min(len(active), i+n)]
			ranges := make([][2]int, len(batch))
			for j, b := range batch {
				ranges[j] = [2]int{b.First, b.Last}
			}
			if texts, err = e.recallTexts(ctx, run, ranges, room > 0 || !focused, keep, focused); err != nil {
				return nil, false, 0, err
			}
		}
		rt := texts[i-batchAt]
		if focused && room <= 0 {
			rt.full, rt.fullTokens = "", 0
		}
		if rt.folded == 0 {
			continue // all of it shows in full already
		}
		room -= max(rt.fullTokens, rt.linesTokens)
		spent += max(rt.fullTokens, rt.linesTokens)
		// The section before names the query: say it once. Only a focused
		// window shows the recalls in this order; the timeline chooses its
		// own, so there every recall names its query.
		name := recallName(r)
		same := focused && r.Reason == recall.ReasonExplicit && prev.Reason == r.Reason && prev.Query == r.Query && prev.Since == r.Since
		if same {
			name = sameRecallName(r)
		}
		prev = r
		out = append(out, window.Recalled{Name: name, Bare: same, Source: fmt.Sprintf("recall:%d", r.ID),
			Full: rt.full, Lines: rt.lines, FullTokens: rt.fullTokens, LinesTokens: rt.linesTokens, Covers: [2]int{r.First, min(r.Last, run.Iterations)},
			Since: r.Since, Carried: r.Since < from, Lingering: r.Expires < run.Iterations})
		if h, ok := held[r.ID]; ok {
			out[len(out)-1].HeldBy = fmt.Sprintf("recall:%d", h.ID)
		}
	}
	if !focused {
		if err := e.widerRecalls(ctx, run, out, keep); err != nil {
			return nil, false, 0, err
		}
	}
	return out, focused, from, nil
}

// heldBy maps each recall, of recalls listed most recently made first,
// whose range an earlier-made one has too, to the earliest such: while
// that one shows, the window shows it for both, where it stands, and
// nothing twice. The ranges are the same, so are the texts. (A recall that
// expired is not refreshed when its iterations are named again: a new one
// is made, held by it while it lingers.)
func heldBy(recalls []recall.Recall) map[int]recall.Recall {
	held := make(map[int]recall.Recall)
	first := make(map[[2]int]recall.Recall)
	for i := len(recalls) - 1; i >= 0; i-- {
		r := recalls[i]
		key := [2]int{r.First, r.Last}
		if h, ok := first[key]; ok {
			held[r.ID] = h
			continue
		}
		first[key] = r
	}
	return held
}

// sameRecallName heads a recall's section when the one before it came
// from the same query, which that one's heading names: the range alone,
// so that a recall of many short hits spends its room on them. The section
// shows it only when its text does not name its iterations itself
// (window.Recalled.Bare); the JSON form and the "not shown" trace always
// name it.
func sameRecallName(r recall.Recall) string {
	if r.Last != r.First {
		return fmt.Sprintf("Iterations %d-%d", r.First, r.Last)
	}
	return fmt.Sprintf("Iteration %d", r.First)
}

// recallName heads a recall's section: what came back and why.
func recallName(r recall.Recall) string {
	what := fmt.Sprintf("Iteration %d", r.First)
	if r.Last != r.First {
		what = fmt.Sprintf("Iterations %d-%d", r.First, r.Last)
	}
	switch r.Reason {
	case recall.ReasonError:
		return fmt.Sprintf("%s (recalled: a failure names %s)", what, r.Query)
	case recall.ReasonImplicit:
		return fmt.Sprintf("%s (recalled: you named %s)", what, r.Query)
	}
	return fmt.Sprintf("%s (recalled for %q)", what, r.Query)
}

// Retrieved is one hit of an explicit recall, with the text it brings back.
type Retrieved struct {
	Kind       string `json:"kind"`
	Iterations [2]int `json:"iterations"`
	// Matched is the part of Iterations the search matched; the rest is
	// the context brought back around it.
	Matched [2]int  `json:"matched"`
	Score   float64 `json:"score"`
	// Visible says the matched iterations show in full in the window
	// already; the Retrieved partition does not show them twice.
	Visible bool    `json:"visible"`
	Block   *string `json:"block"`
	Reason  string  `json:"reason"`
	// Content is the hit's folded iterations, in full while they fit the
	// Retrieved share, else one line each.
	Content string `json:"content"`
	// ID, Since and Expires say where the recall was recorded (0 in a
	// dry run).
	ID      int `json:"id"`
	Since   int `json:"since"`
	Expires int `json:"expires"`
}

// Retrieve runs an explicit recall: BM25 over the run's index, each hit
// expanded to its iterations from the journal (in full while they fit the
// room, else one line each), and recorded so that the next context shows
// them. With no limit (q.Limit and the configured limit 0) it takes, best
// first, as many hits as the window has room to show in full (at least
// one, at most recall.MaxFillHits).
func (e *Engine) Retrieve(ctx context.Context, run journal.Run, q recall.Query) ([]Retrieved, error) {
	auto := q.Limit <= 0 && e.Recall.Config().Limit == 0
	room := e.Config.RetrievedBudget()
	var hits []recall.Recall
	var texts []recallRender
	var err error
	if !auto {
		if hits, err = e.Recall.Retrieve(ctx, run, q); err != nil {
			return nil, err
		}
		ranges := make([][2]int, len(hits))
		for i, h := range hits {
			ranges[i] = [2]int{h.First, h.Last}
		}
		if texts, err = e.recallTexts(ctx, run, ranges, true, false, true); err != nil {
			return nil, err
		}
	} else {
		if hits, texts, room, err = e.fill(ctx, run, q); err != nil {
			return nil, err
		}
		if !q.DryRun {
			if hits, err = e.Recall.Record(ctx, run, hits); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Retrieved, 0, len(hits))
	for i, h := range hits {
		rt := texts[i]
		r := Retrieved{Kind: recall.KindIteration, Iterations: [2]int{h.First, h.Last}, Matched: h.Matched, Score: h.Score, Visible: h.Visible, Reason: h.Reason,
			ID: h.ID, Since: h.Since, Expires: h.Expires}
		if h.Block != "" {
			b := h.Block
			r.Kind, r.Block = recall.KindBlock, &b
		}
		r.Content = rt.lines
		if rt.full != "" && rt.fullTokens <= room {
			r.Content = rt.full
			room -= rt.fullTokens
		} else {
			room -= rt.linesTokens
		}
		out = append(out, r)
	}
	return out, nil
}

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

// maxHitShare bounds a hit past a fill's focus hits to this fraction of
// the room (1/maxHitShare): a question's room holds tens of turns, and one
// hit that would take more than an eighth of it (a long answer, a long
// tool output) pushes out several hits ranked near it, each as likely to
// hold what was asked. The best hits (recall focus) take what they need.
const maxHitShare = 8

// fillHits ranks the hits of a fill (recall.Query.Fill) and keeps, best
// first, those that fit room, skipping one too long for what is left, so
// that one long range does not keep the shorter ones after it out, and,
// past the focus hits, one longer than an eighth of the room (maxHitShare).
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
		p := packer{e: e, run: run, room: room, focus: e.Recall.Config().FocusFor(dry), texts: texts, around: dry.Around}
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
	p.consider(h, rt, cost, i >= p.focus)
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
		p.consider(w.h, w.rt, w.cost, true)
	}
	return !p.full(), nil
}

// consider takes hit h if it fits; past the focus (bounded), only if it
// takes no more than its share of the room (maxHitShare).
func (p *packer) consider(h recall.Recall, rt recallRender, cost int, bounded bool) {
	switch {
	case len(p.c.hits) > 0 && p.c.used+cost > p.room:
		p.skips++
	case bounded && cost > p.room/maxHitShare:
		// one long hit past the best would take the room of several
	default:
		p.skips = 0
		p.c.hits, p.c.texts, p.c.costs = append(p.c.hits, h), append(p.c.texts, rt), append(p.c.costs, cost)
		p.c.used += cost
	}
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

// Reindex rebuilds the recall index from the database, for every run.
func (e *Engine) Reindex(ctx context.Context, progress func(done, total int)) error {
	runs, err := e.Journal.Runs(ctx)
	if err != nil {
		return err
	}
	return e.Recall.Reindex(ctx, runs, progress)
}

// l0Cache keeps recent L0 renderings of recalled iterations: a recall
// shows for several iterations, and rendering (which counts tokens of long
// outputs) costs more than the rest of a context build.
type l0Cache struct {
	mu sync.Mutex
	m  map[l0Key]fold.L0
}

type l0Key struct {
	run     string
	number  int
	lastSeq int64
	maxOut  int
}

// l0CacheSize bounds the cache; it is emptied when full.
const l0CacheSize = 256

func (e *Engine) renderL0(it *journal.Iteration, maxOut int) fold.L0 {
	k := l0Key{it.Run, it.Number, it.LastSeq, maxOut}
	e.l0.mu.Lock()
	v, ok := e.l0.m[k]
	e.l0.mu.Unlock()
	if ok {
		return v
	}
	v = fold.RenderL0(e.Tokenizer, it, maxOut)
	e.l0.mu.Lock()
	if e.l0.m == nil || len(e.l0.m) >= l0CacheSize {
		e.l0.m = make(map[l0Key]fold.L0)
	}
	e.l0.m[k] = v
	e.l0.mu.Unlock()
	return v
}
