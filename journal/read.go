package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// eventRow is the events table row.
type eventRow struct {
	Seq     int64  `db:"seq"`
	TS      string `db:"ts"`
	Type    string `db:"type"`
	Payload []byte `db:"payload"`
}

// queryEvents reads the events of a run with from <= seq <= to, in order.
// st is a prepared sqlSelectEvents.
func queryEvents(ctx context.Context, st *sqlx.Stmt, runID string, from, to int64) ([]Event, error) {
	rows, err := st.QueryxContext(ctx, runID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read events %d-%d of run %s: %w", from, to, runID, sqldb.Classify(err))
	}
	return scanEvents(rows, runID)
}

// scanEvents reads event rows (seq, ts, type, payload) of a run, and
// closes them.
func scanEvents(rows *sqlx.Rows, runID string) ([]Event, error) {
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var r eventRow
		if err := rows.StructScan(&r); err != nil {
			return nil, fmt.Errorf("read events of run %s: %w", runID, err)
		}
		out = append(out, Event{Seq: r.Seq, Timestamp: ParseTimeText(r.TS), Type: r.Type, Payload: r.Payload})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read events of run %s: %w", runID, sqldb.Classify(err))
	}
	return out, nil
}

// Run returns the run with the given id, or an error wrapping ErrRunNotFound.
func (s *Store) Run(ctx context.Context, id string) (Run, error) {
	st, err := s.reads.Prepared(ctx, sqlSelectRun)
	if err != nil {
		return Run{}, err
	}
	var r runRow
	err = st.GetContext(ctx, &r, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("%w: %q", ErrRunNotFound, id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("read run %s: %w", id, sqldb.Classify(err))
	}
	return r.toRun(), nil
}

// Runs lists every run, the most recently appended to first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	var rows []runRow
	if err := s.db.Read.SelectContext(ctx, &rows, `SELECT `+runColumns+` FROM runs ORDER BY activity DESC, id`); err != nil {
		return nil, fmt.Errorf("list runs: %w", sqldb.Classify(err))
	}
	out := make([]Run, len(rows))
	for i, r := range rows {
		out[i] = r.toRun()
	}
	return out, nil
}

// LatestRun returns the run appended to most recently, or ErrNoRuns.
func (s *Store) LatestRun(ctx context.Context) (Run, error) {
	var r runRow
	err := s.db.Read.GetContext(ctx, &r, `SELECT `+runColumns+` FROM runs ORDER BY activity DESC, id LIMIT 1`)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, ErrNoRuns
	}
	if err != nil {
		return Run{}, fmt.Errorf("find latest run: %w", sqldb.Classify(err))
	}
	return r.toRun(), nil
}

// ReadOptions tunes iteration reads.
type ReadOptions struct {
	// WithEvents keeps the raw events on each iteration.
	WithEvents bool
}

// Iteration reads iteration n of a run. Outside the run's range it returns a
// *RangeError (which matches ErrIterationNotFound).
func (s *Store) Iteration(ctx context.Context, runID string, n int, opts ReadOptions) (*Iteration, error) {
	its, err := s.Iterations(ctx, runID, n, n, opts)
	if err != nil {
		return nil, err
	}
	return its[0], nil
}

// Iterations reads iterations from..to (inclusive) of a run, in one range
// scan of the events. Outside the run's range it returns a *RangeError.
func (s *Store) Iterations(ctx context.Context, runID string, from, to int, opts ReadOptions) ([]*Iteration, error) {
	run, err := s.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	return s.IterationsOf(ctx, run, from, to, opts)
}

// IterationsOf is Iterations for a run the caller has read already: one
// statement, where Iterations first reads the run. The range is checked
// against run as given; iterations it does not count yet are outside it.
func (s *Store) IterationsOf(ctx context.Context, run Run, from, to int, opts ReadOptions) ([]*Iteration, error) {
	runID := run.ID
	if from < 1 || to < from || to > run.Iterations {
		return nil, &RangeError{Run: runID, From: from, To: to, Iterations: run.Iterations}
	}
	sel, err := s.reads.Prepared(ctx, sqlSelectRangeEvents)
	if err != nil {
		return nil, err
	}
	rows, err := sel.QueryxContext(ctx, runID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read iterations %d-%d of run %s: %w", from, to, runID, sqldb.Classify(err))
	}
	events, err := scanEvents(rows, runID)
	if err != nil {
		return nil, err
	}
	out := make([]*Iteration, 0, to-from+1)
	g := grouper{keepEvents: opts.WithEvents, head: runHead{task: run.Task}}
	g.resumeAt(from)
	g.done = func(it *Iteration) {
		if it.Number >= from {
			out = append(out, it)
		}
	}
	for _, e := range events {
		if err := g.add(e); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
	}
	g.flush()
	for _, it := range out {
		it.Run = runID
	}
	if len(out) != to-from+1 {
		return nil, fmt.Errorf("run %s: iterations %d-%d grouped into %d, want %d (journal and iteration table disagree)", runID, from, to, len(out), to-from+1)
	}
	return out, nil
}

// sqlSelectEventsAt reads the events of a list of iterations, each with
// its iteration's number; the list follows. CROSS JOIN keeps SQLite's
// planner reading the iterations first: with a list of placeholders, it
// would scan the run's events.
const sqlSelectEventsAt = `SELECT i.number, e.seq, e.ts, e.type, e.payload FROM iterations i CROSS JOIN events e
	WHERE e.run_id = i.run_id AND e.seq BETWEEN i.first_seq AND i.last_seq AND i.run_id = ? AND i.number IN `

// IterationsAt is IterationsOf for the iterations numbers (ascending, no
// repeats), which need not be next to each other, in one statement (a
// thousand at a time): what a recall reads of its hits, across a long
// run. Each stretch of numbers next to each other is grouped as
// IterationsOf groups a range.
func (s *Store) IterationsAt(ctx context.Context, run Run, numbers []int, opts ReadOptions) ([]*Iteration, error) {
	runID := run.ID
	if len(numbers) == 0 {
		return nil, nil
	}
	for i, n := range numbers {
		if n < 1 || n > run.Iterations {
			return nil, &RangeError{Run: runID, From: n, To: n, Iterations: run.Iterations}
		}
		if i > 0 && n <= numbers[i-1] {
			return nil, fmt.Errorf("run %s: iteration %d after %d: want the numbers ascending, each once: %w", runID, n, numbers[i-1], ErrIterationNotFound)
		}
	}
	out := make([]*Iteration, 0, len(numbers))
	err := sqldb.InChunks(numbers, func(chunk []int, list string, args []any) error {
		its, err := s.iterationsIn(ctx, run, chunk, list, args, opts)
		out = append(out, its...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// iterationsIn reads the iterations numbers, listed by list and args
// (sqldb.InList), for IterationsAt.
func (s *Store) iterationsIn(ctx context.Context, run Run, numbers []int, list string, args []any, opts ReadOptions) ([]*Iteration, error) {
	runID := run.ID
	what := fmt.Sprintf("%d iterations (%d to %d) of run %s", len(numbers), numbers[0], numbers[len(numbers)-1], runID)
	rows, err := s.db.Read.QueryxContext(ctx, sqlSelectEventsAt+list+` ORDER BY e.seq`, append([]any{runID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, sqldb.Classify(err))
	}
	defer rows.Close()
	out := make([]*Iteration, 0, len(numbers))
	var g *grouper
	prev := -1
	for rows.Next() {
		var n int
		var r eventRow
		if err := rows.Scan(&n, &r.Seq, &r.TS, &r.Type, &r.Payload); err != nil {
			return nil, fmt.Errorf("read %s: %w", what, sqldb.Classify(err))
		}
		if g == nil || n != prev && n != prev+1 {
			if g != nil {
				g.flush()
			}
			g = &grouper{keepEvents: opts.WithEvents, head: runHead{task: run.Task}}
			g.resumeAt(n)
			g.done = func(it *Iteration) { out = append(out, it) }
		}
		prev = n
		if err := g.add(Event{Seq: r.Seq, Timestamp: ParseTimeText(r.TS), Type: r.Type, Payload: r.Payload}); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, sqldb.Classify(err))
	}
	if g != nil {
		g.flush()
	}
	ok := len(out) == len(numbers)
	for i, it := range out {
		ok = ok && it.Number == numbers[i]
		it.Run = runID
	}
	if !ok {
		return nil, fmt.Errorf("run %s: %s grouped into %d (journal and iteration table disagree)", runID, what, len(out))
	}
	return out, nil
}

// Events reads the raw events of a run with from <= seq <= to.
func (s *Store) Events(ctx context.Context, runID string, from, to int64) ([]Event, error) {
	sel, err := s.reads.Prepared(ctx, sqlSelectEvents)
	if err != nil {
		return nil, err
	}
	return queryEvents(ctx, sel, runID, from, to)
}

// Counts are the figures a run summary shows.
type Counts struct {
	Iterations int   `json:"iterations"`
	Events     int64 `json:"events"`
	// Calls and FailedCalls count tool calls; ErrorIterations counts
	// iterations with a failed action or an ERROR system message.
	Calls           int `json:"calls"`
	FailedCalls     int `json:"failed_calls"`
	ErrorIterations int `json:"error_iterations"`
	PendingCalls    int `json:"pending_calls"`
}

// Counts sums a run's iteration table. It reads one row per iteration (no
// payloads), so it is meant for summaries, not for per-iteration paths.
func (s *Store) Counts(ctx context.Context, runID string) (Counts, error) {
	run, err := s.Run(ctx, runID)
	if err != nil {
		return Counts{}, err
	}
	c := Counts{Iterations: run.Iterations, Events: run.Events}
	err = s.db.Read.QueryRowxContext(ctx, `SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(failures), 0),
		COALESCE(SUM(has_error), 0), COALESCE(SUM(calls - results), 0) FROM iterations WHERE run_id = ?`, runID).
		Scan(&c.Calls, &c.FailedCalls, &c.ErrorIterations, &c.PendingCalls)
	if err != nil {
		return Counts{}, fmt.Errorf("count run %s: %w", runID, sqldb.Classify(err))
	}
	return c, nil
}
