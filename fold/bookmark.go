package fold

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// Bookmark marks an iteration to keep in the window.
type Bookmark struct {
	Iteration int    `db:"iteration" json:"iteration"`
	Note      string `db:"note" json:"note"`
}

// AddBookmark bookmarks iteration n of a run, replacing the note of an
// existing bookmark. n must be an iteration of the run.
func (s *Store) AddBookmark(ctx context.Context, run journal.Run, n int, note string) error {
	if n < 1 || n > run.Iterations {
		return &journal.RangeError{Run: run.ID, From: n, To: n, Iterations: run.Iterations}
	}
	return s.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO bookmarks (run_id, iteration, note) VALUES (?, ?, ?)
			ON CONFLICT (run_id, iteration) DO UPDATE SET note = excluded.note`, run.ID, n, note); err != nil {
			return fmt.Errorf("bookmark iteration %d: %w", n, sqldb.Classify(err))
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "bookmark", Detail: fmt.Sprintf("iteration %d: %s", n, note)})
	})
}

// RemoveBookmark removes the bookmark on iteration n. It reports whether
// there was one.
func (s *Store) RemoveBookmark(ctx context.Context, run journal.Run, n int) (bool, error) {
	var removed bool
	err := s.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM bookmarks WHERE run_id = ? AND iteration = ?`, run.ID, n)
		if err != nil {
			return fmt.Errorf("remove bookmark: %w", sqldb.Classify(err))
		}
		k, _ := res.RowsAffected()
		removed = k > 0
		if !removed {
			return nil
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "unbookmark", Detail: fmt.Sprintf("iteration %d", n)})
	})
	return removed, err
}

// Bookmarks lists a run's bookmarks by iteration.
func (s *Store) Bookmarks(ctx context.Context, run string) ([]Bookmark, error) {
	out := []Bookmark{}
	if err := s.db.Read.SelectContext(ctx, &out, `SELECT iteration, note FROM bookmarks WHERE run_id = ? ORDER BY iteration`, run); err != nil {
		return nil, fmt.Errorf("list bookmarks: %w", sqldb.Classify(err))
	}
	return out, nil
}

func bookmarksTx(ctx context.Context, q sqlx.QueryerContext, run string) (map[int]string, error) {
	var rows []Bookmark
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT iteration, note FROM bookmarks WHERE run_id = ?`, run); err != nil {
		return nil, fmt.Errorf("list bookmarks: %w", sqldb.Classify(err))
	}
	m := make(map[int]string, len(rows))
	for _, r := range rows {
		m[r.Iteration] = r.Note
	}
	return m, nil
}
