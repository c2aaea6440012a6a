package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/journal"
)

// minUpgradeCall is the least time left before a deadline for which an
// upgrade call is started: a summary takes the model seconds.
const minUpgradeCall = 2 * time.Second

// Upgrade says what became of the blocks awaiting the model's summary
// (fold.Folder.Defer) in one update.
type Upgrade struct {
	// Upgraded blocks got the model's summary.
	Upgraded int `json:"upgraded"`
	// Failed counts calls that failed in a way worth trying again later
	// (no answer, 429, 5xx); GivenUp, blocks whose failure would repeat,
	// which keep their extractive summary for good.
	Failed  int `json:"failed"`
	GivenUp int `json:"given_up"`
	// Waiting counts the blocks still awaiting the model's summary.
	Waiting int `json:"waiting"`
	// Deadline says the deadline came before every block was upgraded.
	Deadline bool `json:"deadline"`
	// Breaker is the circuit breaker when it is open: no call was made
	// past that point.
	Breaker *BreakerStatus `json:"breaker,omitempty"`
	// Reasons are the distinct failures, first ones first (at most three).
	Reasons []string `json:"reasons,omitempty"`
}

// Warning is one line saying what the upgrade did not do and why, "" when
// it did all it had to.
func (u Upgrade) Warning(endpoint string) string {
	if u.Waiting == 0 && u.GivenUp == 0 {
		return ""
	}
	why := []string{}
	switch {
	case u.Breaker != nil && u.Breaker.OpenUntil != nil:
		why = append(why, fmt.Sprintf("no calls to %s until %s (circuit open after %d failures in a row: %s)",
			endpoint, u.Breaker.OpenUntil.UTC().Format("15:04:05 UTC"), u.Breaker.Failures, u.Breaker.Reason))
	case u.Deadline:
		why = append(why, "the sync deadline came first")
	}
	if u.Failed > 0 && (u.Breaker == nil || u.Breaker.OpenUntil == nil) {
		why = append(why, fmt.Sprintf("%d calls failed: %s", u.Failed, strings.Join(u.Reasons, "; ")))
	}
	var parts []string
	if u.Waiting > 0 {
		parts = append(parts, fmt.Sprintf("%s keep their extractive summary until the LLM's arrives (a later sync tries again)", plural(u.Waiting, "block")))
	}
	if u.GivenUp > 0 {
		parts = append(parts, fmt.Sprintf("%s keep it for good (the model's answer would fail again: %s)", plural(u.GivenUp, "block"), strings.Join(u.Reasons, "; ")))
	}
	msg := strings.Join(parts, "; ")
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return "LLM summaries: " + msg
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// UpgradeWaiting asks the model for the summaries of the run's blocks that
// a sync did not wait for, under the lock syncs take, until none is left,
// the circuit breaker opens, or ctx ends: the resident server calls it
// between syncs, and the next sync's arrival cancels it. A call cut short
// leaves its block waiting, as it was.
func (e *Engine) UpgradeWaiting(ctx context.Context, runID string) (Upgrade, error) {
	if e.LLM == nil {
		return Upgrade{}, nil
	}
	if n, err := e.Fold.CountAwaiting(ctx, runID); err != nil || n == 0 {
		return Upgrade{}, err
	}
	lock, err := e.exclusive(ctx, runID)
	if err != nil {
		return Upgrade{}, err
	}
	defer lock.Release()
	run, err := e.Journal.Run(ctx, runID)
	if err != nil {
		return Upgrade{}, err
	}
	u, err := e.upgrade(ctx, run, time.Time{})
	if err == nil {
		// The upgraded blocks' new text, indexed before the next sync.
		if _, err = e.Recall.CatchUp(ctx, run, nil); err == nil {
			err = e.Recall.Flush(ctx)
		}
	}
	return u, err
}

// breaker returns the circuit breaker of the summarizer's endpoint.
func (e *Engine) breaker() breaker {
	return breaker{db: e.db, endpoint: e.LLMSettings.BaseURLOrDefault(), now: time.Now}
}

// Breaker reads the circuit breaker of the summarizer's endpoint; ok is
// false when no LLM summarizer is configured.
func (e *Engine) Breaker(ctx context.Context) (st BreakerStatus, ok bool, err error) {
	if e.LLM == nil {
		return st, false, nil
	}
	st, _, err = e.breaker().status(ctx)
	return st, err == nil, err
}

// upgrade asks the model for the summaries of the run's blocks that await
// one, newest first, as many at once as the summarizer's concurrency,
// until none is left, the circuit breaker opens, or until (when not zero)
// is too near to start another call. A call the deadline cuts counts as a
// timeout. Blocks whose call failed keep waiting, for a later update.
func (e *Engine) upgrade(ctx context.Context, run journal.Run, until time.Time) (Upgrade, error) {
	var u Upgrade
	if e.LLM == nil {
		return u, nil
	}
	blocks, err := e.Fold.Awaiting(ctx, run.ID)
	if err != nil || len(blocks) == 0 {
		return u, err
	}
	br := e.breaker()
	var mu sync.Mutex
	var errs []error
	open := false
	note := func(err error) {
		if r := err.Error(); len(u.Reasons) < 3 && !slices.Contains(u.Reasons, r) {
			u.Reasons = append(u.Reasons, r)
		}
	}
	work := max(1, e.LLMSettings.Concurrency)
	for start := 0; start < len(blocks) && !open; start += work {
		st, isOpen, err := br.status(ctx)
		if err != nil {
			return u, err
		}
		if isOpen {
			u.Breaker, open = &st, true
			break
		}
		if !until.IsZero() && time.Until(until) < minUpgradeCall {
			u.Deadline = true
			break
		}
		var wg sync.WaitGroup
		for _, b := range blocks[start:min(len(blocks), start+work)] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := ctx, context.CancelFunc(func() {})
				if !until.IsZero() {
					cctx, cancel = context.WithDeadline(ctx, until)
				}
				_, err := e.Folder.Upgrade(cctx, run, b)
				cut := err != nil && ctx.Err() == nil && cctx.Err() != nil
				cancel()
				var le *llm.Error
				var co *CircuitOpenError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					u.Upgraded++
				case errors.Is(err, fold.ErrUpgradeGone):
				case ctx.Err() != nil:
					errs = append(errs, ctx.Err())
				case errors.As(err, &co):
					u.Breaker, open = &co.Status, true
				case cut:
					// The summarizer leaves a call its caller's deadline cut
					// to the caller: a hung endpoint never reaches its own
					// timeout within a sync, and must still open the circuit.
					u.Deadline = true
					u.Failed++
					reason := "timeout: no answer within the sync deadline"
					note(errors.New(reason))
					st, berr := br.failed(ctx, reason)
					if berr != nil {
						errs = append(errs, berr)
					}
					if st.OpenUntil != nil && time.Now().Before(*st.OpenUntil) {
						u.Breaker, open = &st, true
					}
				case errors.As(err, &le) && le.Transient():
					u.Failed++
					note(err)
					if st, _, berr := br.status(ctx); berr != nil {
						errs = append(errs, berr)
					} else if st.OpenUntil != nil && time.Now().Before(*st.OpenUntil) {
						u.Breaker, open = &st, true
					}
				default:
					u.GivenUp++
					note(err)
					if gerr := e.Folder.GiveUp(ctx, run, b, err); gerr != nil {
						errs = append(errs, gerr)
					}
				}
			}()
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		return u, err
	}
	u.Waiting, err = e.Fold.CountAwaiting(ctx, run.ID)
	return u, err
}
