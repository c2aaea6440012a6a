package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// The LLM circuit breaker. A sync is a short process, and an endpoint that
// hangs or fails costs each one its whole deadline; so after
// breakerFailures endpoint failures in a row (timeouts, no answer, 429s
// past the retries, 5xx), no process of the database calls the endpoint
// for breakerCooldown. The first call after it is a trial: one more failure
// opens the circuit again at once, a success closes it. The state is a row
// of llm_breaker, so that every sync process shares it.
const (
	breakerFailures = 3
	breakerCooldown = 2 * time.Minute
)

// breaker is the circuit breaker of one endpoint.
type breaker struct {
	db       *sqldb.DB
	endpoint string
	now      func() time.Time
}

// breakerState is an endpoint's row of llm_breaker.
type breakerState struct {
	Failures  int    `db:"failures"`
	OpenUntil string `db:"open_until"`
	Reason    string `db:"reason"`
}

// BreakerStatus is the circuit breaker of the summarizer's endpoint, as
// `show` reports it.
type BreakerStatus struct {
	Endpoint string `json:"endpoint"`
	// Failures counts the endpoint's failures in a row.
	Failures int `json:"failures"`
	// OpenUntil, when set and in the future, is when calls resume.
	OpenUntil *time.Time `json:"open_until"`
	// Reason is the last failure.
	Reason string `json:"reason,omitempty"`
}

func (b breaker) read(ctx context.Context, q sqlx.QueryerContext) (breakerState, error) {
	var st breakerState
	err := sqlx.GetContext(ctx, q, &st, `SELECT failures, open_until, reason FROM llm_breaker WHERE endpoint = ?`, b.endpoint)
	if errors.Is(err, sql.ErrNoRows) {
		return breakerState{}, nil
	}
	if err != nil {
		return st, fmt.Errorf("read the LLM circuit breaker: %w", sqldb.Classify(err))
	}
	return st, nil
}

// status reads the breaker; open says calls are held back now.
func (b breaker) status(ctx context.Context) (BreakerStatus, bool, error) {
	st, err := b.read(ctx, b.db.Read)
	out := BreakerStatus{Endpoint: b.endpoint, Failures: st.Failures, Reason: st.Reason}
	if err != nil {
		return out, false, err
	}
	until, perr := time.Parse(time.RFC3339Nano, st.OpenUntil)
	if perr != nil {
		return out, false, nil
	}
	out.OpenUntil = &until
	return out, b.now().Before(until), nil
}

// failed counts one endpoint failure, and opens the circuit at
// breakerFailures in a row. It returns the state after.
func (b breaker) failed(ctx context.Context, reason string) (BreakerStatus, error) {
	var out BreakerStatus
	err := b.db.Update(ctx, "", func(tx *sqlx.Tx) error {
		st, err := b.read(ctx, tx)
		if err != nil {
			return err
		}
		st.Failures++
		st.Reason = reason
		if st.Failures >= breakerFailures {
			st.OpenUntil = b.now().Add(breakerCooldown).UTC().Format(time.RFC3339Nano)
		}
		out = BreakerStatus{Endpoint: b.endpoint, Failures: st.Failures, Reason: reason}
		if until, err := time.Parse(time.RFC3339Nano, st.OpenUntil); err == nil {
			out.OpenUntil = &until
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO llm_breaker (endpoint, failures, open_until, reason) VALUES (?, ?, ?, ?)
			ON CONFLICT (endpoint) DO UPDATE SET failures = excluded.failures, open_until = excluded.open_until, reason = excluded.reason`,
			b.endpoint, st.Failures, st.OpenUntil, st.Reason)
		if err != nil {
			return fmt.Errorf("write the LLM circuit breaker: %w", sqldb.Classify(err))
		}
		return nil
	})
	return out, err
}

// succeeded closes the circuit.
func (b breaker) succeeded(ctx context.Context) error {
	if st, err := b.read(ctx, b.db.Read); err != nil || st == (breakerState{}) {
		return err
	}
	return b.db.Update(ctx, "", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM llm_breaker WHERE endpoint = ?`, b.endpoint); err != nil {
			return fmt.Errorf("write the LLM circuit breaker: %w", sqldb.Classify(err))
		}
		return nil
	})
}

// HeldBack counts the summaries the open circuit breaker kept this engine
// from asking for: each fell back to Extractive, or still awaits the model.
func (e *Engine) HeldBack() int { return int(e.held.Load()) }

// CircuitOpenError is the failure of a summary not asked for because the
// circuit breaker is open.
type CircuitOpenError struct{ Status BreakerStatus }

// Error says the breaker is open and when it will try again.
func (e *CircuitOpenError) Error() string {
	until := ""
	if e.Status.OpenUntil != nil {
		until = " until " + e.Status.OpenUntil.UTC().Format("15:04:05 UTC")
	}
	return fmt.Sprintf("no call to %s%s: circuit open after %d failures in a row (%s)", e.Status.Endpoint, until, e.Status.Failures, e.Status.Reason)
}

// guarded is the LLM summarizer behind the circuit breaker: while the
// circuit is open a summary fails at once with *CircuitOpenError (and the
// Folder falls back to Extractive); each call's outcome moves the breaker.
// A call that ctx ended is left to the caller to count: the caller's
// deadline, not the endpoint, may have cut it.
type guarded struct {
	*fold.LLMSummarizer
	br breaker
	// held counts the summaries the open circuit held back.
	held *atomic.Int64
}

func (g guarded) Summarize(ctx context.Context, req *fold.Request) (fold.Summary, error) {
	if req.Level == fold.L1 {
		return g.LLMSummarizer.Summarize(ctx, req) // rule-based: no call
	}
	st, open, err := g.br.status(ctx)
	if err != nil {
		return fold.Summary{}, err
	}
	if open {
		g.held.Add(1)
		return fold.Summary{}, &CircuitOpenError{Status: st}
	}
	s, err := g.LLMSummarizer.Summarize(ctx, req)
	var le *llm.Error
	switch {
	case err == nil:
		err = g.br.succeeded(ctx)
	case ctx.Err() != nil:
	case errors.As(err, &le) && le.Transient():
		if _, berr := g.br.failed(ctx, err.Error()); berr != nil {
			err = errors.Join(err, berr)
		}
	}
	return s, err
}
