package recall

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// Why a recall was made.
const (
	ReasonExplicit = "explicit"
	ReasonImplicit = "implicit"
	ReasonError    = "error"
)

// Recall is a range of iterations brought back into the Retrieved
// partition, and why.
type Recall struct {
	ID    int `json:"id"`
	First int `json:"first"`
	Last  int `json:"last"`
	// Block is the block whose summary matched, "" when an iteration did.
	Block  string  `json:"block"`
	Reason string  `json:"reason"`
	Query  string  `json:"query"`
	Score  float64 `json:"score"`
	// Since is the iteration that made the recall; it shows through
	// Expires, unless a later iteration names it again.
	Since   int `json:"since"`
	Expires int `json:"expires"`
	// Matched is the range the search matched, within First..Last, which
	// adds the context around it; set on what Retrieve returns, not stored.
	Matched [2]int `json:"-"`
	// Visible says the matched range shows in full in the window already
	// (Working); set on what Retrieve returns, not stored.
	Visible bool `json:"-"`
	// Again says the step that made the recall acts on its iterations
	// again (its calls take what they took, or a failure names what they
	// changed): set on what the triggers make, not stored. Such a recall
	// is made anew when an earlier one holds the same iterations
	// (store.apply).
	Again bool `json:"-"`
}

// Active reports whether the recall shows at iteration now.
func (r Recall) Active(now int) bool { return r.Since <= now && now <= r.Expires }

type recallRow struct {
	ID      int            `db:"id"`
	First   int            `db:"first_iter"`
	Last    int            `db:"last_iter"`
	Block   sql.NullString `db:"block"`
	Reason  string         `db:"reason"`
	Query   string         `db:"query"`
	Score   float64        `db:"score"`
	Since   int            `db:"since"`
	Expires int            `db:"expires"`
}

func (r recallRow) recall() Recall {
	return Recall{ID: r.ID, First: r.First, Last: r.Last, Block: r.Block.String, Reason: r.Reason, Query: r.Query,
		Score: r.Score, Since: r.Since, Expires: r.Expires}
}

// state is a run's recall_state row, with its index_positions row for
// the index that holds the run.
type state struct {
	IndexedIter  int   `db:"indexed_iter"`
	IndexedSeq   int64 `db:"indexed_seq"`
	IndexedBlock int64 `db:"indexed_block"`
	CheckedIter  int   `db:"checked_iter"`
	CheckedSeq   int64 `db:"checked_seq"`
	NextRecall   int   `db:"next_recall"`
	// The mentions cover iterations up to MentionedIter.
	MentionedIter int `db:"mentioned_iter"`
}

// store keeps recall's tables in the database. The positions it reads and
// writes belong to an index, which a worker key names (WorkerOf).
type store struct {
	db *sqldb.DB
}

// WorkerOf names the recall index at dir on db, for the positions stored
// per index: the empty name for SQLite's, the only one of its file; the
// host and the directory for PostgreSQL's, one per worker and run.
func WorkerOf(db *sqldb.DB, dir string) string {
	if db.Dialect != sqldb.Postgres {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return hostname() + ":" + dir
}

// hostname is this host's name, read once: WorkerOf runs on every read of
// a run's positions.
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

// metaGenerationKey is the recall_meta key of a worker's index generation.
func metaGenerationKey(worker string) string {
	if worker == "" {
		return "generation"
	}
	return "generation " + worker
}

func (s *store) update(ctx context.Context, run string, fn func(tx *sqlx.Tx) error) error {
	return s.db.Update(ctx, run, fn)
}

// generation returns the index generation the stored positions describe.
func (s *store) generation(ctx context.Context, worker string) (string, error) {
	var g string
	err := s.db.Read.GetContext(ctx, &g, `SELECT value FROM recall_meta WHERE key = ?`, metaGenerationKey(worker))
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return g, err
}

// adopt records a new generation of the worker's index and forgets its
// position in every run, so that each run is indexed again from the start
// when next caught up. Other workers' positions stay. run is the run the
// index holds ("" when it holds any, as SQLite's does), for the write lock.
func (s *store) adopt(ctx context.Context, run, worker, gen string) error {
	return s.update(ctx, run, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO recall_meta (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, metaGenerationKey(worker), gen); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM index_positions WHERE worker = ?`, worker)
		return err
	})
}

// forget drops what the database says of worker's index: its generation
// and its positions, as when the index is removed on purpose. run is the
// run the index holds ("" when it holds any), for the write lock. An index
// of one run has a worker of its own (WorkerOf its directory), so its
// positions are that run's.
func (s *store) forget(ctx context.Context, run, worker string) error {
	return s.update(ctx, run, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_meta WHERE key = ?`, metaGenerationKey(worker)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM index_positions WHERE worker = ?`, worker)
		return err
	})
}

// forgetPosition drops the position the database records for worker's
// index of run, so that the run is indexed again from the start.
func (s *store) forgetPosition(ctx context.Context, run, worker string) error {
	return s.update(ctx, run, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM index_positions WHERE worker = ? AND run_id = ?`, worker, run)
		return err
	})
}

// state returns a run's positions in worker's index; a run never seen has
// zeros.
func (s *store) state(ctx context.Context, q sqlx.QueryerContext, worker, run string) (state, error) {
	st := state{NextRecall: 1}
	err := sqlx.GetContext(ctx, q, &st, `SELECT COALESCE(p.indexed_iter, 0) AS indexed_iter, COALESCE(p.indexed_seq, 0) AS indexed_seq,
		COALESCE(p.indexed_block, 0) AS indexed_block, s.checked_iter, s.checked_seq, s.next_recall, s.mentioned_iter
		FROM recall_state s LEFT JOIN index_positions p ON p.worker = ? AND p.run_id = s.run_id WHERE s.run_id = ?`, worker, run)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	return st, err
}

func ensureState(ctx context.Context, tx *sqlx.Tx, run string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO recall_state (run_id) VALUES (?) ON CONFLICT DO NOTHING`, run)
	return err
}

// saveIndexed records how far worker's index got for a run.
func (s *store) saveIndexed(ctx context.Context, worker, run string, iter int, seq, block int64) error {
	return s.update(ctx, run, func(tx *sqlx.Tx) error {
		if err := ensureState(ctx, tx, run); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO index_positions (worker, run_id, indexed_iter, indexed_seq, indexed_block)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (worker, run_id) DO UPDATE SET indexed_iter = excluded.indexed_iter,
			indexed_seq = excluded.indexed_seq, indexed_block = excluded.indexed_block`, worker, run, iter, seq, block)
		return err
	})
}

// active returns the recalls showing at iteration now, newest first, then
// highest-scoring.
func (s *store) active(ctx context.Context, q sqlx.QueryerContext, run string, now int) ([]Recall, error) {
	return s.query(ctx, q, `WHERE run_id = ? AND expires >= ? AND since <= ? ORDER BY since DESC, score DESC, id DESC`, run, now, now)
}

// history returns a run's recalls, newest first, at most limit (0: all).
func (s *store) history(ctx context.Context, run string, limit int) ([]Recall, error) {
	if limit <= 0 {
		limit = math.MaxInt32 // all: LIMIT -1 is SQLite's only
	}
	return s.query(ctx, s.db.Read, `WHERE run_id = ? ORDER BY id DESC LIMIT ?`, run, limit)
}

func (s *store) query(ctx context.Context, q sqlx.QueryerContext, where string, args ...any) ([]Recall, error) {
	var rows []recallRow
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT id, first_iter, last_iter, block, reason, query, score, since, expires
		FROM recalls `+where, args...); err != nil {
		return nil, fmt.Errorf("read recalls: %w", err)
	}
	out := make([]Recall, len(rows))
	for i, r := range rows {
		out[i] = r.recall()
	}
	return out, nil
}

// change is what one pass of the triggers (or one retrieve) decided.
type change struct {
	// add are new recalls (ID, Since and Expires are set on write); one
	// whose range an active recall already shows refreshes that recall,
	// and, when the step acts on that range again (Recall.Again) and the
	// active one has exactly it, is also made anew.
	add []Recall
	// refresh are active recalls named again.
	refresh []int
	// checked, when set, moves the triggers' position.
	checked    bool
	checkedIt  int
	checkedSeq int64
}

// apply writes a change at iteration now, in one transaction, and returns
// the recalls it added or refreshed, as stored.
func (s *store) apply(ctx context.Context, run string, now, ttl int, c change) ([]Recall, error) {
	var out []Recall
	err := s.update(ctx, run, func(tx *sqlx.Tx) error {
		out = out[:0]
		if err := ensureState(ctx, tx, run); err != nil {
			return err
		}
		// The triggers' position and the next id, not an index's: any
		// worker key reads them.
		st, err := s.state(ctx, tx, "", run)
		if err != nil {
			return err
		}
		if c.checked && (c.checkedIt < st.CheckedIter || c.checkedIt == st.CheckedIter && c.checkedSeq <= st.CheckedSeq) {
			return nil // another process got here first
		}
		active, err := s.active(ctx, tx, run, now)
		if err != nil {
			return err
		}
		expires := now + ttl
		touched := map[int]bool{}
		for _, r := range c.add {
			if i := coveredBy(active, r); i >= 0 {
				c.refresh = append(c.refresh, active[i].ID)
				if !r.Again || !madeBefore(active, r, now) {
					continue
				}
			}
			r.ID, r.Since, r.Expires = st.NextRecall, now, expires
			st.NextRecall++
			var block any
			if r.Block != "" {
				block = r.Block
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO recalls (run_id, id, first_iter, last_iter, block, reason, query, score, since, expires)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, run, r.ID, r.First, r.Last, block, r.Reason, r.Query, r.Score, r.Since, r.Expires); err != nil {
				return fmt.Errorf("record recall: %w", err)
			}
			active = append(active, r)
			touched[r.ID] = true
			out = append(out, r)
		}
		for _, id := range c.refresh {
			if touched[id] {
				continue
			}
			touched[id] = true
			if _, err := tx.ExecContext(ctx, `UPDATE recalls SET expires = CASE WHEN expires > ?1 THEN expires ELSE ?1 END WHERE run_id = ?2 AND id = ?3`, expires, run, id); err != nil {
				return fmt.Errorf("refresh recall: %w", err)
			}
			for _, a := range active {
				if a.ID == id {
					a.Expires = max(a.Expires, expires)
					out = append(out, a)
				}
			}
		}
		set := `next_recall = ?`
		args := []any{st.NextRecall}
		if c.checked {
			set += `, checked_iter = ?, checked_seq = ?`
			args = append(args, c.checkedIt, c.checkedSeq)
		}
		_, err = tx.ExecContext(ctx, `UPDATE recall_state SET `+set+` WHERE run_id = ?`, append(args, run)...)
		return err
	})
	return out, err
}

// madeBefore reports whether an active recall has exactly r's range, and
// none with it was made at iteration now. A step that acts again on
// what an earlier recall holds needs it where it stands, and the earlier
// one may no longer show there (later recalls took its room); made anew,
// it comes back at the step's place in the window while the earlier one
// does not show, and shows through it while it does (window.Recalled
// .HeldBy).
func madeBefore(active []Recall, r Recall, now int) bool {
	same := false
	for _, a := range active {
		if a.First == r.First && a.Last == r.Last {
			if a.Since >= now {
				return false
			}
			same = true
		}
	}
	return same
}

// coveredBy returns the index of an active recall whose range holds r's,
// or -1.
func coveredBy(active []Recall, r Recall) int {
	for i, a := range active {
		if a.First <= r.First && r.Last <= a.Last {
			return i
		}
	}
	return -1
}
