package fold

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// state is the scheduler's memory of a run between steps.
type state struct {
	Run      string `db:"run_id"`
	Noted    int    `db:"noted"`
	NotedSeq int64  `db:"noted_seq"`
	// Decided is the newest iteration after which the step finished
	// deciding (Scheduler.decide). Noting an iteration sets it to the one
	// before; a step that ends with every decision made sets it to Noted.
	Decided          int    `db:"decided"`
	ToolsOK          string `db:"tools_ok"`
	LastInterval     int    `db:"last_interval"`
	ChapterStart     int    `db:"chapter_start"`
	MilestoneTitle   string `db:"milestone_title"`
	MilestoneIter    int    `db:"milestone_iter"`
	PendingMilestone string `db:"pending_milestone"`
	// MilestoneDeclared says a caller declared the pending milestone
	// (DeclareMilestone) rather than a thought.
	MilestoneDeclared bool `db:"milestone_declared"`
}

func loadState(ctx context.Context, q sqlx.QueryerContext, run string) (state, error) {
	var st state
	err := sqlx.GetContext(ctx, q, &st, `SELECT run_id, noted, noted_seq, decided, tools_ok, last_interval, chapter_start, milestone_title,
		milestone_iter, pending_milestone, milestone_declared FROM fold_state WHERE run_id = ?`, run)
	if errors.Is(err, sql.ErrNoRows) {
		return state{Run: run, ChapterStart: 1, ToolsOK: "[]"}, nil
	}
	if err != nil {
		return st, fmt.Errorf("read fold state of run %s: %w", run, sqldb.Classify(err))
	}
	return st, nil
}

func saveState(ctx context.Context, tx *sqlx.Tx, st state) error {
	_, err := tx.NamedExecContext(ctx, `INSERT INTO fold_state (run_id, noted, noted_seq, decided, tools_ok, last_interval, chapter_start,
		milestone_title, milestone_iter, pending_milestone, milestone_declared) VALUES (:run_id, :noted, :noted_seq, :decided, :tools_ok, :last_interval,
		:chapter_start, :milestone_title, :milestone_iter, :pending_milestone, :milestone_declared)
		ON CONFLICT (run_id) DO UPDATE SET noted = excluded.noted, noted_seq = excluded.noted_seq, decided = excluded.decided, tools_ok = excluded.tools_ok,
		last_interval = excluded.last_interval, chapter_start = excluded.chapter_start, milestone_title = excluded.milestone_title,
		milestone_iter = excluded.milestone_iter, pending_milestone = excluded.pending_milestone, milestone_declared = excluded.milestone_declared`, st)
	if err != nil {
		return fmt.Errorf("save fold state of run %s: %w", st.Run, sqldb.Classify(err))
	}
	return nil
}

// Milestone returns the title and iteration of the run's latest milestone,
// or "" and 0 if none was declared.
func (s *Store) Milestone(ctx context.Context, run string) (string, int, error) {
	st, err := loadState(ctx, s.db.Read, run)
	return st.MilestoneTitle, st.MilestoneIter, err
}

// LogEntry is one line of the fold log.
type LogEntry struct {
	Iteration int    `db:"iteration" json:"iteration"`
	Action    string `db:"action" json:"action"`
	Block     string `db:"block" json:"block,omitempty"`
	Detail    string `db:"detail" json:"detail,omitempty"`
}

func logAction(ctx context.Context, tx *sqlx.Tx, run string, e LogEntry) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO fold_log (run_id, iteration, action, block, detail) VALUES (?, ?, ?, ?, ?)`,
		run, e.Iteration, e.Action, e.Block, e.Detail)
	if err != nil {
		return fmt.Errorf("write fold log: %w", sqldb.Classify(err))
	}
	return nil
}

// Log returns the newest limit entries of a run's fold log, oldest first.
func (s *Store) Log(ctx context.Context, run string, limit int) ([]LogEntry, error) {
	var out []LogEntry
	err := s.db.Read.SelectContext(ctx, &out, `SELECT iteration, action, block, detail FROM
		(SELECT id, iteration, action, block, detail FROM fold_log WHERE run_id = ? ORDER BY id DESC LIMIT ?) AS newest ORDER BY id`, run, limit)
	if err != nil {
		return nil, fmt.Errorf("read fold log: %w", sqldb.Classify(err))
	}
	return out, nil
}

// EntityState is the last action a run took on a file or entity.
type EntityState struct {
	Entity    string `db:"entity" json:"entity"`
	Iteration int    `db:"iteration" json:"iteration"`
	Action    string `db:"action" json:"action"`
}

// EntityStates returns the limit entities acted on most recently, newest
// first (by iteration, then name, both descending so the index serves the order).
func (s *Store) EntityStates(ctx context.Context, run string, limit int) ([]EntityState, error) {
	var out []EntityState
	err := s.db.Read.SelectContext(ctx, &out, `SELECT entity, iteration, action FROM entity_state
		WHERE run_id = ? ORDER BY iteration DESC, entity DESC LIMIT ?`, run, limit)
	if err != nil {
		return nil, fmt.Errorf("read entity state: %w", sqldb.Classify(err))
	}
	return out, nil
}

// ErrNothingToFold means a milestone was declared with no iteration since
// the previous one.
var ErrNothingToFold = errors.New("nothing to fold")

// DeclareMilestone records a milestone the user (or agent) declared; the
// next scheduler step folds everything since the previous milestone into a
// chapter named title, even while the window has room: the caller asked
// for it.
func (s *Store) DeclareMilestone(ctx context.Context, run journal.Run, title string) error {
	if title == "" {
		return errors.New("milestone: empty title")
	}
	return s.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		st, err := loadState(ctx, tx, run.ID)
		if err != nil {
			return err
		}
		if run.Iterations < st.ChapterStart {
			return fmt.Errorf("%w: no iteration since the last milestone (%q at iteration %d)", ErrNothingToFold, st.MilestoneTitle, st.MilestoneIter)
		}
		st.PendingMilestone, st.MilestoneDeclared = title, true
		if err := saveState(ctx, tx, st); err != nil {
			return err
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "milestone", Detail: title})
	})
}
