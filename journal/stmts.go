package journal

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqlitedb"
)

// SQL of the hot paths, prepared once per pool by stmtCache.
const (
	sqlSelectRun       = `SELECT ` + runColumns + ` FROM runs WHERE id = ?`
	sqlSelectOpenRange = `SELECT first_seq, last_seq FROM iterations WHERE run_id = ? AND number = ?`
	sqlSelectEvents    = `SELECT seq, ts, type, payload FROM events WHERE run_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`
	sqlSelectRange     = `SELECT (SELECT first_seq FROM iterations WHERE run_id = ?1 AND number = ?2),
		(SELECT last_seq FROM iterations WHERE run_id = ?1 AND number = ?3)`
	sqlInsertEvent = `INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)`
	sqlInsertRun   = `INSERT INTO runs (id, format, status) VALUES (?, ?, ?)`
	sqlUpsertIter  = sqlIterInsert + sqlIterTuple + sqlIterConflict
	sqlUpdateRun   = `UPDATE runs SET task = ?, system_prompt = ?, agent_ref = ?, status = ?,
		started_at = ?, ended_at = ?, last_seq = ?, events = ?, iterations = ?,
		activity = MAX(activity, ?) WHERE id = ?`
)

// stmtCache keeps statements prepared on a pool, keyed by their SQL.
// database/sql re-prepares a query on every call otherwise, and SQLite's
// parser was a third of an append's time. A pool-level statement is prepared
// once per connection and reused; Tx.Stmtx reuses it inside a transaction on
// the same connection (the writer pool has only one).
type stmtCache struct {
	mu sync.Mutex
	db *sqlx.DB
	m  map[string]*sqlx.Stmt
}

// prepared returns the statement for query, preparing it on first use.
func (c *stmtCache) prepared(ctx context.Context, query string) (*sqlx.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := c.db.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", sqlitedb.Classify(err))
	}
	if c.m == nil {
		c.m = map[string]*sqlx.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

// The iteration upsert, in parts, so that a batch can repeat the tuple.
const (
	sqlIterInsert = `INSERT INTO iterations
		(run_id, number, first_seq, last_seq, thought_seq, started_at, ended_at, calls, results, failures, status, has_error)
		VALUES `
	sqlIterTuple    = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlIterConflict = ` ON CONFLICT (run_id, number) DO UPDATE SET
			last_seq = excluded.last_seq, thought_seq = excluded.thought_seq, ended_at = excluded.ended_at,
			calls = excluded.calls, results = excluded.results, failures = excluded.failures,
			status = excluded.status, has_error = excluded.has_error`
)

// iterBatch is how many iteration rows one upsert writes on a long import.
const iterBatch = 32

// sqlUpsertIterBatch upserts iterBatch iterations.
var sqlUpsertIterBatch = sqlIterInsert + sqlIterTuple + strings.Repeat(", "+sqlIterTuple, iterBatch-1) + sqlIterConflict

// eventBatch is how many events one INSERT stores. One statement per event
// made database/sql's and the driver's per-call cost dominate imports.
const eventBatch = 64

// sqlInsertEventBatch inserts eventBatch events.
var sqlInsertEventBatch = sqlInsertEvent + strings.Repeat(", (?, ?, ?, ?, ?)", eventBatch-1)

// writeSQL is every statement the append path runs inside a transaction.
var writeSQL = []string{sqlSelectRun, sqlSelectOpenRange, sqlSelectEvents, sqlInsertEvent, sqlInsertEventBatch,
	sqlUpsertIter, sqlUpsertIterBatch, sqlUpdateRun}

// warm prepares queries ahead of a transaction. It must run before BeginTx
// on the writer pool: that pool has one connection, which an open
// transaction holds, so preparing on the pool inside it would wait forever.
func (c *stmtCache) warm(ctx context.Context, queries []string) error {
	for _, q := range queries {
		if _, err := c.prepared(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// inTx returns the statement for query bound to tx: the cached one when
// warm prepared it, else one prepared on the transaction itself.
func (c *stmtCache) inTx(ctx context.Context, tx *sqlx.Tx, query string) (*sqlx.Stmt, error) {
	c.mu.Lock()
	st, ok := c.m[query]
	c.mu.Unlock()
	if ok {
		return tx.StmtxContext(ctx, st), nil
	}
	st, err := tx.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", sqlitedb.Classify(err))
	}
	return st, nil
}

// close releases every prepared statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
