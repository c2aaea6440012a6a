package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Query is an explicit recall.
type Query struct {
	// Keywords are words, phrases, paths or identifiers; a document
	// matches any of them, ranked by BM25, exact entity matches first.
	Keywords []string
	// Limit caps the hits (default Config.Limit, else Config.MaxHits; at
	// most Config.MaxHits, or MaxFillHits for a fill).
	Limit int
	// DryRun finds and ranks without recording a recall.
	DryRun bool
	// Fill asks for hits to fill a window's room rather than a short
	// list: see Retrieve.
	Fill bool
	// Around, if set, keeps what the recall reads of the iterations
	// around its hits, and what its first search and second hop's
	// expansion gave, for another round of the same fill, which asks
	// again for more hits; nil reads and searches afresh.
	Around *Around
}

// Text returns the query as one line, as recorded.
func (q Query) Text() string { return strings.Join(q.Keywords, " ") }

// Retrieve runs an explicit recall over a run: BM25 over its iteration and
// block documents, fused with the nearby signal for a question in words
// (nearby.go), ranking what the window shows in full too (such a hit
// says so in Recall.Visible), and records
// them so that the next context shows them in the Retrieved partition. It
// returns the hits as recorded, best first.
//
// An iteration hit comes back with Config.Context iterations on each side
// (its range says so), clipped where an earlier hit's range begins or
// ends: the ranges of one recall never overlap. A block gives way to
// iteration hits in its range, which say more in fewer tokens. With q.Fill
// (a question to memory, filling the window's room), the context holds for
// the best Config.FocusFor hits only; past them hits are single iterations,
// never blocks, each with the other half of its exchange (exchange.go);
// and the current step is never a hit. A recall that asks for more hits
// than the focus (a fill, or a limit past Config.FocusFor) fuses a second
// search, on the words the best hits share, with the first (secondhop.go):
// it reorders the hits past the focus only, so a recall of five hits
// costs what it did, and the best hits of a longer one keep their places.
func (r *Recaller) Retrieve(ctx context.Context, run journal.Run, q Query) ([]Recall, error) {
	var picked []Recall
	if err := r.Each(ctx, run, q, func(h Recall) (bool, error) {
		picked = append(picked, h)
		return true, nil
	}); err != nil {
		return nil, err
	}
	if q.DryRun {
		return picked, nil
	}
	return r.Record(ctx, run, picked)
}

// Each finds and ranks the hits of an explicit recall as Retrieve does,
// and hands them to yield best first, until yield says to stop or
// q.Limit hits were handed; it records nothing (q.DryRun is implied). What
// decides a hit's range (its context, its exchange) is read a batch of
// hits ahead (Around), and no further than the hits still wanted allow, so
// a caller that stops early, such as a fill whose room is full, pays for
// the hits it took and a batch at most.
func (r *Recaller) Each(ctx context.Context, run journal.Run, q Query, yield func(Recall) (bool, error)) error {
	if strings.TrimSpace(q.Text()) == "" {
		return fmt.Errorf("%w: give at least one keyword", ErrEmptyQuery)
	}
	if q.Limit <= 0 {
		q.Limit = cmp.Or(r.cfg.Limit, r.cfg.MaxHits)
	}
	if q.Fill {
		q.Limit = min(q.Limit, max(r.cfg.MaxHits, MaxFillHits))
	} else {
		q.Limit = min(q.Limit, r.cfg.MaxHits)
	}
	if _, err := r.CatchUp(ctx, run, nil); err != nil {
		return err
	}
	ix, err := r.index(ctx, run.ID)
	if err != nil {
		return err
	}
	var ids, named []string
	for _, k := range q.Keywords {
		for _, e := range scoring.Entities(k) {
			ids = appendEntity(ids, e.Value)
			named = append(named, e.Value)
		}
		if k = strings.TrimSpace(k); k != "" && !strings.ContainsAny(k, " \t\n") {
			ids = appendEntity(ids, k)
		}
	}
	l := lookup{run: run.ID, words: q.Text(), ids: ids, limit: q.Limit * retrieveDepth}
	if q.Fill {
		l.limit, l.follow = max(l.limit, fillDepth), q.Limit
	}
	focusN := r.cfg.FocusFor(q)
	ar := q.Around
	if ar == nil {
		ar = new(Around)
	}
	ar.reset(run.ID, run.Iterations, max(r.cfg.Context, 1), q.Fill)
	// Only a caller's Around is asked again (a fill's next round): a
	// recall's own keeps no searches.
	hits, err := q.Around.firstSearch(ctx, ix, l)
	var words map[hitKey]float64
	if r.cfg.Dates > 0 && asksWhen(l.words) {
		// A question that asks when ranks its hits again by these
		// scores, before the signals below fuse them (byWhen).
		words = wordScores(hits)
	}
	if err == nil && q.Fill && len(named) == 0 {
		hits, err = ix.addConcepts(ctx, l, hits, r.cfg.Concepts)
	}
	if err == nil {
		// A lone word is also looked up whole (ids), but only what reads
		// as an identifier (named) makes the query a lookup.
		hits = nearbyForWords(hits, named, r.cfg.Nearby, max(run.Iterations, 1))
	}
	if err == nil {
		hits, err = r.byTime(ctx, ix, run, l, hits)
	}
	if err == nil {
		hits, err = r.byWhen(ctx, ix, l, hits, words)
	}
	if err == nil && (q.Fill || q.Limit > focusN) {
		// The second hop keeps the best focusN hits in their places: a
		// recall of no more than those would pay for it and get nothing.
		hits, err = r.secondHop(ctx, ix, q.Around, run.ID, l, hits, focusN)
	}
	if err != nil {
		return err
	}
	var picked []Recall
	if q.Fill {
		ar.matched = matchedIterations(hits)
	}
	for i, h := range hits {
		if len(picked) == q.Limit {
			break
		}
		if h.First > run.Iterations {
			// Past the run as the caller read it: written since, or a
			// document the database never had (catchUp rebuilds such an
			// index, but a step that is not due to catch up reads it).
			continue
		}
		h.Last = min(h.Last, run.Iterations)
		focus := !q.Fill || len(picked) < focusN
		if overlaps(picked, h.First, h.Last) || h.Kind == KindBlock && (!focus || holdsIteration(hits, h)) {
			continue
		}
		if q.Fill && h.Last >= run.Iterations {
			// The current step, which asked: it shows in full, and it
			// matches its own words best.
			if h.First >= run.Iterations {
				continue
			}
			h.Last = run.Iterations - 1
		}
		var full int
		if h.Kind == KindIteration {
			if err := ar.need(ctx, r, hits, i, q.Limit-len(picked)); err != nil {
				return err
			}
			full = ar.inFull(h.First, h.Last)
		} else if full, err = r.folds.InFull(ctx, run.ID, h.First, h.Last); err != nil {
			return err
		}
		first, last := h.First, h.Last
		switch {
		case h.Kind != KindIteration:
		case focus && r.cfg.Context > 0:
			lo, hi := widen(picked, first, last, r.cfg.Context, run.Iterations)
			first, last = ar.trimContext(h, lo, hi)
		case q.Fill:
			lo, hi := widen(picked, first, last, 1, max(1, run.Iterations-1))
			first, last = ar.exchange(h, lo, hi)
		}
		picked = append(picked, Recall{First: first, Last: last, Block: h.Block, Reason: ReasonExplicit, Query: q.Text(), Score: h.Score,
			Matched: [2]int{h.First, h.Last}, Visible: full == h.Last-h.First+1})
		if more, err := yield(picked[len(picked)-1]); err != nil || !more {
			return err
		}
	}
	return nil
}

// MaxFillHits bounds the hits of a fill (Query.Fill), which may take more
// than Config.MaxHits: a fill takes as many hits as its room holds, and a
// large budget holds hundreds of short turns.
const MaxFillHits = 1600

// fillDepth is how many documents a fill's first search ranks at least,
// however few hits its room holds. The nearby signal scores a turn by the
// matches around it, and those are often weak matches, ranked far down: a
// ranking cut at three times the hits a small room takes left them out
// (TestAFillRanksTheWeakMatchesAroundATurn). A conversation of several
// hundred turns is ranked whole. The searches fused with the first rank
// as many as the recall takes (lookup.follow), and the fused ranking
// keeps the first one's depth.
const fillDepth = 1000

// retrieveDepth is how many hits a recall's search asks for per hit it
// may take: hits that overlap a better one are passed over.
const retrieveDepth = 3

// holdsIteration reports whether an iteration hit falls in block hit b's
// range: the block then gives way to the iterations that match themselves,
// which say more in fewer tokens than the whole range.
func holdsIteration(hits []Hit, b Hit) bool {
	for _, h := range hits {
		if h.Kind == KindIteration && b.First <= h.First && h.Last <= b.Last {
			return true
		}
	}
	return false
}

// maxContextRatio bounds an iteration of context, in tokens, to this many
// times the hit's own (or contextFloor): a short question between two long
// answers comes back alone, and a recall's room goes to what matched.
const (
	maxContextRatio = 3
	contextFloor    = 64
)

// trimContext narrows lo..hi, the hit's range widened by its context, to
// the iterations next to the hit that are not too long for context. The
// iterations around the hit must be read (need).
func (a *Around) trimContext(h Hit, lo, hi int) (int, int) {
	if lo == h.First && hi == h.Last {
		return lo, hi
	}
	own := 0
	for n := h.First; n <= h.Last; n++ {
		own += a.noted[n].Tokens
	}
	most := max(contextFloor, int(maxContextRatio*float64(own)))
	first, last := h.First, h.Last
	for first > lo && a.noted[first-1].Tokens <= most {
		first--
	}
	for last < hi && a.noted[last+1].Tokens <= most {
		last++
	}
	return first, last
}

// widen extends first..last by n iterations on each side, within 1..end
// and short of the ranges in rs.
func widen(rs []Recall, first, last, n, end int) (int, int) {
	lo, hi := max(1, first-n), min(max(end, last), last+n)
	for _, r := range rs {
		if r.Last < first && r.Last >= lo {
			lo = r.Last + 1
		}
		if r.First > last && r.First <= hi {
			hi = r.First - 1
		}
	}
	return lo, hi
}

// Record records explicit recalls found by a dry run (Retrieve with
// DryRun), so that the next context shows them, and counts an access to
// the blocks they cover. It returns them in the order given, with where
// each was recorded: a range an active recall already showed refreshes
// that recall.
func (r *Recaller) Record(ctx context.Context, run journal.Run, rs []Recall) ([]Recall, error) {
	if len(rs) == 0 {
		return rs, nil
	}
	now := max(run.Iterations, 1)
	stored, err := r.store.apply(ctx, run.ID, now, r.cfg.TTL, change{add: rs})
	if err != nil {
		return nil, err
	}
	if err := r.touch(ctx, run.ID, stored, now); err != nil {
		return nil, err
	}
	out := make([]Recall, 0, len(rs))
	for _, p := range rs {
		for _, s := range stored {
			if s.First <= p.First && p.Last <= s.Last {
				p.ID, p.Since, p.Expires = s.ID, s.Since, s.Expires
				break
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// ErrEmptyQuery is returned for a recall with no keywords.
var ErrEmptyQuery = fmt.Errorf("empty recall query")

// contains reports whether a recall in rs holds first..last.
func contains(rs []Recall, first, last int) bool {
	return coveredBy(rs, Recall{First: first, Last: last}) >= 0
}

// overlaps reports whether a recall in rs shares an iteration with
// first..last.
func overlaps(rs []Recall, first, last int) bool {
	for _, r := range rs {
		if r.First <= last && first <= r.Last {
			return true
		}
	}
	return false
}

// touch counts an access to the blocks covering each recall.
func (r *Recaller) touch(ctx context.Context, run string, rs []Recall, now int) error {
	for _, x := range rs {
		if err := r.folds.Touch(ctx, run, x.First, x.Last, now); err != nil {
			return err
		}
	}
	return nil
}

// Active returns the recalls showing at iteration now, newest first.
func (r *Recaller) Active(ctx context.Context, run string, now int) ([]Recall, error) {
	return r.store.active(ctx, r.store.db.Read, run, now)
}

// Lingering returns the recalls made by iteration now that had not expired
// at iteration from, newest made first, at most limit: the active ones and
// those that expired since. Past limit, the recalls of the oldest
// iteration go first, and of one iteration's the last recorded (a fill's
// lowest ranked). A window that keeps its prefix for the prompt
// cache lets a recall fade only when the summaries change anyway (from is
// then the last fold). The read goes through the expiry index, so it costs
// what expired since from, not the run's length (after a question's fill,
// up to MaxFillHits rows for a TTL); the rows are sorted here.
func (r *Recaller) Lingering(ctx context.Context, run string, now, from, limit int) ([]Recall, error) {
	rs, err := r.store.query(ctx, r.store.db.Read, `INDEXED BY recalls_expires WHERE run_id = ? AND expires >= ? AND since <= ?`, run, from, now)
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(rs) > limit {
		// Keep the newest made, and of those made at one iteration the
		// first recorded: a fill records its hits best first.
		slices.SortFunc(rs, func(a, b Recall) int { return cmp.Or(cmp.Compare(b.Since, a.Since), cmp.Compare(a.ID, b.ID)) })
		rs = rs[:limit]
	}
	slices.SortFunc(rs, func(a, b Recall) int { return cmp.Compare(b.ID, a.ID) })
	return rs, nil
}

// History returns a run's recalls, newest first, at most limit (0: all).
func (r *Recaller) History(ctx context.Context, run string, limit int) ([]Recall, error) {
	return r.store.history(ctx, run, limit)
}
