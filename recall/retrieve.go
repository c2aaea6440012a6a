package recall

import (
	"context"
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Query is an explicit recall.
type Query struct {
	// Keywords are words, phrases, paths or identifiers; a document
	// matches any of them, ranked by BM25, exact entity matches first.
	Keywords []string
	// Limit caps the hits (default Config.Limit).
	Limit int
	// DryRun finds and ranks without recording a recall.
	DryRun bool
	// Visible keeps the hits shown in full already, which a recall skips;
	// with DryRun it ranks the whole run, as an evaluation needs.
	Visible bool
}

// Text returns the query as one line, as recorded.
func (q Query) Text() string { return strings.Join(q.Keywords, " ") }

// Retrieve runs an explicit recall over a run: BM25 over its iteration and
// block documents, keeping hits not already shown in full, and records
// them so that the next context shows them in the Retrieved partition. It
// returns the hits as recorded, best first.
func (r *Recaller) Retrieve(ctx context.Context, run journal.Run, q Query) ([]Recall, error) {
	if strings.TrimSpace(q.Text()) == "" {
		return nil, fmt.Errorf("%w: give at least one keyword", ErrEmptyQuery)
	}
	if q.Limit <= 0 {
		q.Limit = r.cfg.Limit
	}
	if _, err := r.CatchUp(ctx, run, nil); err != nil {
		return nil, err
	}
	ix, err := r.index(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, k := range q.Keywords {
		for _, e := range scoring.Entities(k) {
			ids = appendEntity(ids, e.Value)
		}
		if k = strings.TrimSpace(k); k != "" && !strings.ContainsAny(k, " \t\n") {
			ids = appendEntity(ids, k)
		}
	}
	hits, err := ix.search(ctx, lookup{run: run.ID, words: q.Text(), ids: ids, limit: q.Limit * 3})
	if err != nil {
		return nil, err
	}
	var picked []Recall
	for _, h := range hits {
		if len(picked) == q.Limit {
			break
		}
		if overlaps(picked, h.First, h.Last) {
			continue
		}
		if !q.Visible {
			full, err := r.folds.InFull(ctx, run.ID, h.First, h.Last)
			if err != nil {
				return nil, err
			}
			if full == h.Last-h.First+1 {
				continue // already visible in full
			}
		}
		picked = append(picked, Recall{First: h.First, Last: h.Last, Block: h.Block, Reason: ReasonExplicit, Query: q.Text(), Score: h.Score})
	}
	if q.DryRun || len(picked) == 0 {
		return picked, nil
	}
	now := max(run.Iterations, 1)
	stored, err := r.store.apply(ctx, run.ID, now, r.cfg.TTL, change{add: picked})
	if err != nil {
		return nil, err
	}
	if err := r.touch(ctx, run.ID, stored, now); err != nil {
		return nil, err
	}
	// Report in rank order, with what the store made of each (a range an
	// active recall already showed was refreshed, not added).
	out := make([]Recall, 0, len(picked))
	for _, p := range picked {
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

// History returns a run's recalls, newest first, at most limit (0: all).
func (r *Recaller) History(ctx context.Context, run string, limit int) ([]Recall, error) {
	return r.store.history(ctx, run, limit)
}
