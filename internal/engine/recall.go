package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/window"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// Bounds on what one recall puts before the window's fitter, so that a
// recall of a long chapter costs the window what it can show, not what
// the chapter holds.
const (
	// maxOffered is how many active recalls are offered to the Retrieved
	// partition; the rest are named in show, not rendered.
	maxOffered = 12
	// maxFullRange is the longest range offered in full (L0).
	maxFullRange = 8
	// maxLines is the most L1 lines a recall offers.
	maxLines = 40
)

// recalled renders the run's active recalls for the Retrieved partition,
// most wanted first. Iterations shown in full in Working are left out.
func (e *Engine) recalled(ctx context.Context, run journal.Run) ([]window.Recalled, error) {
	if run.Iterations == 0 {
		return nil, nil
	}
	active, err := e.Recall.Active(ctx, run.ID, run.Iterations)
	if err != nil {
		return nil, err
	}
	if len(active) > maxOffered {
		active = active[:maxOffered]
	}
	out := make([]window.Recalled, 0, len(active))
	for _, r := range active {
		full, lines, n, err := e.recallText(ctx, run, r.First, r.Last)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue // all of it shows in full already
		}
		out = append(out, window.Recalled{Name: recallName(r), Source: fmt.Sprintf("recall:%d", r.ID), Full: full, Lines: lines})
	}
	return out, nil
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

// recallText renders the folded iterations of first..last: in full, when
// the range is short enough to be offered so, and as L1 lines. n counts
// the folded iterations; 0 means the whole range shows in full already.
func (e *Engine) recallText(ctx context.Context, run journal.Run, first, last int) (full, lines string, n int, err error) {
	last = min(last, run.Iterations)
	if first > last {
		return "", "", 0, nil
	}
	notes, err := e.Fold.Notes(ctx, run.ID, first, min(last, first+maxLines-1))
	if err != nil {
		return "", "", 0, err
	}
	var folded []int
	var lb strings.Builder
	for _, nt := range notes {
		if nt.Block == "" {
			continue
		}
		folded = append(folded, nt.Number)
		lb.WriteString(nt.L1)
		lb.WriteByte('\n')
	}
	if more := last - (first + maxLines - 1); more > 0 {
		fmt.Fprintf(&lb, "[… %d more iterations: delta memory show --iteration N]\n", more)
	}
	if len(folded) == 0 {
		return "", "", 0, nil
	}
	lines = strings.TrimRight(lb.String(), "\n")
	if last-first+1 > maxFullRange {
		return "", lines, len(folded), nil
	}
	its, err := e.Journal.Iterations(ctx, run.ID, folded[0], folded[len(folded)-1], journal.ReadOptions{})
	if err != nil {
		return "", "", 0, err
	}
	maxOut := max(64, min(e.Config.MaxOutputTokens, e.Config.RetrievedBudget()/3))
	var fb strings.Builder
	for _, it := range its {
		if !containsInt(folded, it.Number) {
			continue
		}
		fb.WriteString(fold.RenderL0(e.Tokenizer, it, maxOut).Markdown)
	}
	return strings.TrimRight(fb.String(), "\n"), lines, len(folded), nil
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// Retrieved is one hit of an explicit recall, with the text it brings back.
type Retrieved struct {
	Kind       string  `json:"kind"`
	Iterations [2]int  `json:"iterations"`
	Score      float64 `json:"score"`
	Block      *string `json:"block"`
	Reason     string  `json:"reason"`
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
// Retrieved share, else one line each), and recorded so that the next
// context shows them.
func (e *Engine) Retrieve(ctx context.Context, run journal.Run, q recall.Query) ([]Retrieved, error) {
	hits, err := e.Recall.Retrieve(ctx, run, q)
	if err != nil {
		return nil, err
	}
	budget := e.Config.RetrievedBudget()
	out := make([]Retrieved, 0, len(hits))
	for _, h := range hits {
		full, lines, _, err := e.recallText(ctx, run, h.First, h.Last)
		if err != nil {
			return nil, err
		}
		r := Retrieved{Kind: recall.KindIteration, Iterations: [2]int{h.First, h.Last}, Score: h.Score, Reason: h.Reason,
			ID: h.ID, Since: h.Since, Expires: h.Expires}
		if h.Block != "" {
			b := h.Block
			r.Kind, r.Block = recall.KindBlock, &b
		}
		r.Content = lines
		if n := e.Tokenizer.Count(full); full != "" && n <= budget {
			r.Content = full
			budget -= n
		} else {
			budget -= e.Tokenizer.Count(lines)
		}
		out = append(out, r)
	}
	return out, nil
}

// Reindex rebuilds the recall index from the database, for every run.
func (e *Engine) Reindex(ctx context.Context, progress func(done, total int)) error {
	runs, err := e.Journal.Runs(ctx)
	if err != nil {
		return err
	}
	return e.Recall.Reindex(ctx, runs, progress)
}
