package journal

import "strings"

// SQL of the hot paths, prepared once per pool by sqldb.Stmts.
const (
	sqlSelectRun       = `SELECT ` + runColumns + ` FROM runs WHERE id = ?`
	sqlSelectOpenRange = `SELECT first_seq, last_seq FROM iterations WHERE run_id = ? AND number = ?`
	sqlSelectEvents    = `SELECT seq, ts, type, payload FROM events WHERE run_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`
	// sqlSelectRangeEvents reads the events of iterations ?2..?3: the
	// bounds are scalar subqueries, evaluated once, so the scan is the
	// same range scan of the events' key as sqlSelectEvents.
	sqlSelectRangeEvents = `SELECT seq, ts, type, payload FROM events WHERE run_id = ?1 AND seq BETWEEN
		(SELECT first_seq FROM iterations WHERE run_id = ?1 AND number = ?2) AND
		(SELECT last_seq FROM iterations WHERE run_id = ?1 AND number = ?3) ORDER BY seq`
	sqlInsertEvent = `INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)`
	sqlInsertRun   = `INSERT INTO runs (id, format, status) VALUES (?, ?, ?)`
	sqlUpsertIter  = sqlIterInsert + sqlIterTuple + sqlIterConflict
	sqlUpdateRun   = `UPDATE runs SET task = ?1, system_prompt = ?2, agent_ref = ?3, status = ?4,
		started_at = ?5, ended_at = ?6, last_seq = ?7, events = ?8, iterations = ?9,
		activity = CASE WHEN activity > ?10 THEN activity ELSE ?10 END WHERE id = ?11`
)

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

// writeSQL is the statements every append runs inside a transaction,
// prepared ahead of it and kept. The many-row ones are left to the long
// appends that use them (see appender.batchStmt).
var writeSQL = []string{sqlSelectRun, sqlSelectOpenRange, sqlSelectEvents, sqlInsertEvent, sqlUpsertIter, sqlUpdateRun}
