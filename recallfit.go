package memory

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// Outside a question to memory, a recall of one iteration shows whole
// while it takes at most half the recalls' reach (the run's timeline,
// window.Build), and its tool output is bounded to half of that
// (recallOutputCap), so that the thought, the call and the heading have
// the rest. Most revisited steps have a short thought or none, and a call
// of a line: the rest went unused while the output, a reservation or a
// search's flights, showed its head and tail. A recall whose output was
// cut is also rendered with the output bounded by what the rest of the
// recall leaves of the least room the timeline gives a recall alone
// (fittedRendering): its fitted form, which the window shows when the
// room of the step that made it holds it beside the step's other recalls
// (window.Recalled.Fitted).

// fitRecall returns the fitted form of recall r, headed name, whose text
// in full is rt (window.Recalled.Fitted): for a recall of one iteration
// whose output its text cuts, the iteration rendered to take what the rest
// leaves of the least room a recall gets whole in the timeline
// (window.RecallTextRoom), when that shows more; else an empty rendering.
// hold is the room the scheduler holds for the recalls, read into it on
// first need (0 until then).
func (e *Engine) fitRecall(ctx context.Context, run journal.Run, r recall.Recall, name string, rt recallRender, hold *int, keep bool) (rendering, error) {
	if r.First != r.Last || rt.full == "" {
		return rendering{}, nil
	}
	if *hold == 0 {
		acts, err := e.Fold.Acts(ctx, run.ID, run.Iterations)
		if err != nil {
			return rendering{}, err
		}
		*hold = e.Config.RecallHold(acts)
	}
	target := window.RecallTextRoom(e.Tokenizer, name, e.Config.RecallReach(), *hold)
	if target == rt.fullTokens || target > rt.fullTokens && !fold.Truncated(rt.full) {
		return rendering{}, nil // it fits exactly, or shows its output whole already
	}
	fit, ok, err := e.fittedRendering(ctx, run, r.First, e.recallOutputCap(true, false), target, keep)
	if err != nil || !ok || fit.Tokens == rt.fullTokens {
		return rendering{}, err
	}
	return fit, nil
}

// minFitBound is the least output bound a fit tries.
const minFitBound = 32

// maxFitRounds bounds the renderings a fit tries: the output's bound is
// moved by what the last one missed or overshot, and the tokens of a cut
// output follow its bound closely, so two or three settle it.
const maxFitRounds = 4

// fittedRendering renders iteration n alone, its tool output bounded so
// that the rendering takes at most target tokens and as much of the
// output as that allows, from floor (the bound its rendering had) up. It
// returns ok false when no bound past floor fits. The result is kept in
// recall_renders under a key of its own (fitKey) when keep is set, and
// read from there when kept.
func (e *Engine) fittedRendering(ctx context.Context, run journal.Run, n, floor, target int, keep bool) (r rendering, ok bool, err error) {
	key := e.fitKey(target)
	var kept []rendering
	if err := sqlx.SelectContext(ctx, e.db.Cached(), &kept, `SELECT iteration, markdown, tokens FROM recall_renders
		WHERE run_id = ? AND key = ? AND iteration = ?`, run.ID, key, n); err != nil {
		return rendering{}, false, fmt.Errorf("read kept renderings of run %s: %w", run.ID, err)
	}
	if len(kept) == 1 {
		return kept[0], kept[0].Markdown != "", nil
	}
	its, err := e.Journal.IterationsAt(ctx, run, []int{n}, journal.ReadOptions{})
	if err != nil {
		return rendering{}, false, err
	}
	if len(its) != 1 {
		return rendering{}, false, nil
	}
	r = rendering{Iteration: n}
	bound := floor
	for range maxFitRounds {
		md, tokens := e.renderAs(its[0], bound, true)
		if tokens <= target && tokens > r.Tokens {
			r.Markdown, r.Tokens = md, tokens
		}
		if !fold.Truncated(md) && tokens <= target {
			break // the whole output shows: no wider bound shows more
		}
		next := bound + target - tokens
		if next < minFitBound || next == bound {
			break
		}
		bound = next
	}
	if keep {
		// Kept even when nothing fits (an empty Markdown), so that the
		// next sync does not try again.
		if err := e.keepRenderings(ctx, run.ID, key, []rendering{r}); err != nil {
			return rendering{}, false, err
		}
	}
	return r, r.Markdown != "", nil
}

// fitKey names a fitted rendering kept in recall_renders: the rendering's
// version and tokenizer, and the tokens it was fitted to.
func (e *Engine) fitKey(target int) string {
	return renderVersion + "/" + e.Tokenizer.Name() + "/fit" + strconv.Itoa(target)
}
