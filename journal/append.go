package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// AppendResult says what an append stored.
type AppendResult struct {
	Run string `json:"run"`
	// Added counts new events; Skipped counts events whose seq was stored already.
	Added   int `json:"added"`
	Skipped int `json:"skipped"`
	// Iterations is the run's iteration count after the append, and
	// NewIterations how many of them the append started.
	Iterations    int   `json:"iterations"`
	NewIterations int   `json:"new_iterations"`
	LastSeq       int64 `json:"last_seq"`
}

// Append stores events for a run in one transaction, creating the run if it
// is new. Events whose seq is already stored are skipped, so appending the
// same events twice is harmless. Seqs must increase within the call
// (ErrSeqOrder otherwise, and nothing is stored).
func (s *Store) Append(ctx context.Context, runID, format string, events []Event) (AppendResult, error) {
	var res AppendResult
	err := s.update(ctx, runID, func(tx *writeTx) error {
		a, err := s.newAppender(ctx, tx, runID, format)
		if err != nil {
			return err
		}
		for _, e := range events {
			if _, err := a.add(ctx, e); err != nil {
				return err
			}
		}
		res, err = a.finish(ctx)
		return err
	})
	return res, err
}

// appender adds events to one run inside a transaction. It loads the run row
// and the open iteration once, then works in memory, so the cost of an
// append does not depend on how long the run already is.
type appender struct {
	tx      *writeTx
	store   *Store
	run     runRow
	g       grouper
	lastSeq int64
	res     AppendResult
	// first and startEvents are the run's counts when the appender started.
	first       int
	startEvents int64

	// Statements bound to tx, used once per event or iteration. The
	// many-row ones are prepared on first use (see batchStmt).
	insEvent, insBatch, upsIter, upsIterBatch *sqlx.Stmt
	ctx                                       context.Context
	// pending holds events grouped but not yet inserted; args is reused
	// to bind them.
	pending []Event
	args    []any
	// iterArgs holds the rows of iterations waiting to be upserted,
	// twelve values each.
	iterArgs []any
	err      error // first error from the grouper's done callback
	// rowid is the rowid of the newest event stored: the run's activity.
	rowid int64
}

// runRow is the runs table row.
type runRow struct {
	ID           string `db:"id"`
	Task         string `db:"task"`
	SystemPrompt string `db:"system_prompt"`
	AgentRef     string `db:"agent_ref"`
	Status       string `db:"status"`
	Format       string `db:"format"`
	StartedAt    string `db:"started_at"`
	EndedAt      string `db:"ended_at"`
	LastSeq      int64  `db:"last_seq"`
	Events       int64  `db:"events"`
	Iterations   int    `db:"iterations"`
	Activity     int64  `db:"activity"`
}

func (r runRow) toRun() Run {
	return Run{
		ID: r.ID, Task: r.Task, SystemPrompt: r.SystemPrompt, AgentRef: r.AgentRef, Status: r.Status,
		Format: r.Format, StartedAt: ParseTimeText(r.StartedAt), EndedAt: ParseTimeText(r.EndedAt),
		Iterations: r.Iterations, Events: r.Events, LastSeq: r.LastSeq,
	}
}

const runColumns = `id, task, system_prompt, agent_ref, status, format, started_at, ended_at, last_seq, events, iterations, activity`

// newAppender starts appending to runID inside tx, creating the run if new.
func (s *Store) newAppender(ctx context.Context, tx *writeTx, runID, format string) (*appender, error) {
	if runID == "" {
		return nil, fmt.Errorf("append: empty run id")
	}
	a := &appender{tx: tx, store: s, ctx: ctx}
	a.g.light = true
	selRun, err := s.writes.InTx(ctx, tx.Tx, sqlSelectRun)
	if err != nil {
		return nil, err
	}
	err = selRun.GetContext(ctx, &a.run, runID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		status := RunRunning
		if format == FormatOpenAI {
			status = RunUnknown
		}
		a.run = runRow{ID: runID, Format: format, Status: status}
		if _, err := tx.ExecContext(ctx, sqlInsertRun, runID, format, status); err != nil {
			return nil, fmt.Errorf("create run %s: %w", runID, sqldb.Classify(err))
		}
	case err != nil:
		return nil, fmt.Errorf("load run %s: %w", runID, sqldb.Classify(err))
	}
	if a.insEvent, err = s.writes.InTx(ctx, tx.Tx, sqlInsertEvent); err != nil {
		return nil, err
	}
	if a.upsIter, err = s.writes.InTx(ctx, tx.Tx, sqlUpsertIter); err != nil {
		return nil, err
	}
	a.lastSeq = a.run.LastSeq
	a.first, a.startEvents = a.run.Iterations, a.run.Events
	a.res.Run = runID
	a.g.head = runHead{task: a.run.Task, systemPrompt: a.run.SystemPrompt, agentRef: a.run.AgentRef, runID: runID}
	if err := a.loadOpenIteration(ctx); err != nil {
		return nil, err
	}
	a.g.done = a.writeIteration
	return a, nil
}

// loadOpenIteration rebuilds the newest iteration in memory so that events
// arriving now can join it (a result for a call made in the last batch). It
// takes it from the Store's cache when no one has appended since.
func (a *appender) loadOpenIteration(ctx context.Context) error {
	n := a.run.Iterations
	if n == 0 {
		return nil
	}
	if cur := a.store.open.get(a.run.ID, a.run.LastSeq, n); cur != nil {
		a.g.last, a.g.cur, a.g.dirty = n, cur, false
		return nil
	}
	var rng struct {
		First int64 `db:"first_seq"`
		Last  int64 `db:"last_seq"`
	}
	sel, err := a.store.writes.InTx(ctx, a.tx.Tx, sqlSelectOpenRange)
	if err != nil {
		return err
	}
	if err := sel.GetContext(ctx, &rng, a.run.ID, n); err != nil {
		return fmt.Errorf("load iteration %d of run %s: %w", n, a.run.ID, sqldb.Classify(err))
	}
	selEvents, err := a.store.writes.InTx(ctx, a.tx.Tx, sqlSelectEvents)
	if err != nil {
		return err
	}
	events, err := queryEvents(ctx, selEvents, a.run.ID, rng.First, rng.Last)
	if err != nil {
		return err
	}
	return replayIteration(&a.g, n, events)
}

// replayIteration feeds the events of iteration n into g so that g ends with
// that iteration open.
func replayIteration(g *grouper, n int, events []Event) error {
	g.resumeAt(n)
	done := g.done
	g.done = nil
	defer func() { g.done = done }()
	for _, e := range events {
		if err := g.add(e); err != nil {
			return fmt.Errorf("replay iteration %d: %w", n, err)
		}
	}
	if g.cur == nil || g.cur.Number != n {
		return fmt.Errorf("replay iteration %d: stored events do not open it", n)
	}
	g.dirty = false
	return nil
}

// add stores e if its seq is new. It reports whether e was stored.
func (a *appender) add(ctx context.Context, e Event) (bool, error) {
	if e.Seq <= a.lastSeq {
		if e.Seq <= a.run.LastSeq {
			a.res.Skipped++
			return false, nil
		}
		return false, fmt.Errorf("%w: seq %d after %d in run %s", ErrSeqOrder, e.Seq, a.lastSeq, a.run.ID)
	}
	if err := a.g.add(e); err != nil {
		return false, err
	}
	if a.err != nil {
		return false, a.err
	}
	a.pending = append(a.pending, e)
	if len(a.pending) == eventBatch {
		if err := a.flushEvents(ctx); err != nil {
			return false, err
		}
	}
	a.lastSeq = e.Seq
	a.res.Added++
	if ts := TimeText(e.Timestamp); ts != "" {
		if a.run.StartedAt == "" {
			a.run.StartedAt = ts
		}
		a.run.EndedAt = ts
	}
	return true, nil
}

// flushEvents inserts the pending events: a full batch in one statement,
// a shorter tail one by one.
func (a *appender) flushEvents(ctx context.Context) error {
	if len(a.pending) == 0 {
		return nil
	}
	st := a.insEvent
	if len(a.pending) == eventBatch {
		var err error
		if st, err = a.batchStmt(&a.insBatch, sqlInsertEventBatch); err != nil {
			return err
		}
	}
	a.args = a.args[:0]
	var res sql.Result
	var err error
	for _, e := range a.pending {
		a.args = append(a.args, a.run.ID, e.Seq, TimeText(e.Timestamp), e.Type, []byte(e.Payload))
		if st == a.insEvent {
			if res, err = st.ExecContext(ctx, a.args...); err != nil {
				return fmt.Errorf("store event %d of run %s: %w", e.Seq, a.run.ID, sqldb.Classify(err))
			}
			a.args = a.args[:0]
		}
	}
	if st != a.insEvent {
		if res, err = st.ExecContext(ctx, a.args...); err != nil {
			return fmt.Errorf("store events %d-%d of run %s: %w", a.pending[0].Seq, a.pending[len(a.pending)-1].Seq, a.run.ID, sqldb.Classify(err))
		}
	}
	if a.rowid, err = a.newestRowid(ctx, res); err != nil {
		return fmt.Errorf("store events of run %s: %w", a.run.ID, err)
	}
	a.pending = a.pending[:0]
	return nil
}

// newestRowid returns the rowid of the newest event just stored. SQLite
// reports it with the insert; PostgreSQL's driver does not, and the
// schema's rowid column is read back (its sequence only grows, and write
// transactions take turns, sqldb.DB.Update).
func (a *appender) newestRowid(ctx context.Context, res sql.Result) (int64, error) {
	if a.store.db.Dialect != sqldb.Postgres {
		return res.LastInsertId()
	}
	last := a.pending[len(a.pending)-1].Seq
	var id int64
	err := a.tx.QueryRowxContext(ctx, `SELECT rowid FROM events WHERE run_id = ? AND seq = ?`, a.run.ID, last).Scan(&id)
	return id, sqldb.Classify(err)
}

// batchStmt returns *st, preparing query on the transaction first if
// needed: a short append (a sync's few lines) never fills a batch, and
// preparing the two many-row statements took longer (0.15 ms) than the
// four others together.
func (a *appender) batchStmt(st **sqlx.Stmt, query string) (*sqlx.Stmt, error) {
	if *st == nil {
		s, err := a.store.writes.InTx(a.ctx, a.tx.Tx, query)
		if err != nil {
			return nil, err
		}
		*st = s
	}
	return *st, nil
}

// writeIteration upserts an iteration row; it is the grouper's done callback.
func (a *appender) writeIteration(it *Iteration) {
	if a.err != nil {
		return
	}
	calls, results, failures := it.Counts()
	a.iterArgs = append(a.iterArgs, a.run.ID, it.Number, it.FirstSeq, it.LastSeq, it.ThoughtSeq,
		TimeText(it.Start), TimeText(it.End), calls, results, failures, it.Status, it.HasError)
	if len(a.iterArgs) == 12*iterBatch {
		a.err = a.flushIterations()
	}
}

// flushIterations upserts the buffered iteration rows: a full batch in one
// statement, a shorter tail one row at a time.
func (a *appender) flushIterations() error {
	rows := a.iterArgs
	a.iterArgs = a.iterArgs[:0]
	if len(rows) == 12*iterBatch {
		st, err := a.batchStmt(&a.upsIterBatch, sqlUpsertIterBatch)
		if err != nil {
			return err
		}
		if _, err := st.Exec(rows...); err != nil {
			return fmt.Errorf("store iterations of run %s: %w", a.run.ID, sqldb.Classify(err))
		}
		return nil
	}
	for i := 0; i < len(rows); i += 12 {
		if _, err := a.upsIter.Exec(rows[i : i+12]...); err != nil {
			return fmt.Errorf("store iteration %v of run %s: %w", rows[i+1], a.run.ID, sqldb.Classify(err))
		}
	}
	return nil
}

// finish writes the open iteration and the run row. The appender can keep
// adding afterwards; finish again before commit.
func (a *appender) finish(ctx context.Context) (AppendResult, error) {
	if err := a.flushEvents(ctx); err != nil {
		return a.res, err
	}
	if a.g.cur != nil && a.g.dirty {
		a.writeIteration(a.g.cur)
	}
	if a.err == nil {
		a.err = a.flushIterations()
	}
	if a.err != nil {
		return a.res, a.err
	}
	h := a.g.head
	r := &a.run
	r.Task, r.SystemPrompt, r.AgentRef = h.task, h.systemPrompt, h.agentRef
	if h.status != "" {
		r.Status = h.status
	}
	r.Events = a.startEvents + int64(a.res.Added)
	r.LastSeq = a.lastSeq
	r.Iterations = a.g.last
	upd, err := a.store.writes.InTx(ctx, a.tx.Tx, sqlUpdateRun)
	if err != nil {
		return a.res, err
	}
	_, err = upd.ExecContext(ctx, r.Task, r.SystemPrompt, r.AgentRef, r.Status, r.StartedAt, r.EndedAt, r.LastSeq, r.Events, r.Iterations, a.rowid, r.ID)
	if err != nil {
		return a.res, fmt.Errorf("update run %s: %w", r.ID, sqldb.Classify(err))
	}
	if cur := a.g.cur; cur != nil && a.g.dirty {
		run, seq := r.ID, r.LastSeq
		snapshot := cur.clone()
		a.tx.afterCommit = append(a.tx.afterCommit, func() { a.store.open.put(run, seq, snapshot) })
	}
	a.res.Iterations = r.Iterations
	a.res.NewIterations = r.Iterations - a.first
	a.res.LastSeq = r.LastSeq
	return a.res, nil
}
