package fold

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// BlocksAfter returns up to limit blocks of a run made after position
// after, oldest first, with the position of each. Blocks are never deleted,
// so positions only grow: an index can follow the blocks by position.
func (s *Store) BlocksAfter(ctx context.Context, run string, after int64, limit int) ([]*Block, []int64, error) {
	var rows []struct {
		Pos int64 `db:"pos"`
		blockRow
	}
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &rows, `SELECT rowid AS pos, `+blockColumns+` FROM blocks
		WHERE run_id = ? AND rowid > ? ORDER BY rowid LIMIT ?`, run, after, limit); err != nil {
		return nil, nil, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	blocks := make([]*Block, len(rows))
	pos := make([]int64, len(rows))
	for i := range rows {
		blocks[i], pos[i] = rows[i].toBlock(), rows[i].Pos
	}
	return blocks, pos, nil
}

// lastBlockPos is the position of the newest block of any run, 0 if none.
func (s *Store) lastBlockPos(ctx context.Context) (int64, error) {
	var pos int64
	if err := s.db.Read.GetContext(ctx, &pos, `SELECT COALESCE(MAX(rowid), 0) FROM blocks`); err != nil {
		return 0, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return pos, nil
}

// madeSince lists the blocks of a run made after position mark as fold
// events, oldest first. It reads the six columns an event needs, not whole
// blocks: a step runs it every time, mostly to find one or none.
func (s *Store) madeSince(ctx context.Context, run string, mark int64) ([]FoldEvent, error) {
	var out []FoldEvent
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &out, `SELECT id, level, first_iter, last_iter, trigger, created_iter, made_at_usage
		FROM blocks WHERE run_id = ? AND rowid > ? ORDER BY rowid`, run, mark); err != nil {
		return nil, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return out, nil
}

// Covering returns the visible block covering iteration n and its
// importance. folded is false when n shows in full (or is not noted yet).
func (s *Store) Covering(ctx context.Context, run string, n int) (block string, importance float64, folded bool, err error) {
	var row struct {
		Block      sql.NullString  `db:"block"`
		Importance sql.NullFloat64 `db:"importance"`
	}
	err = sqlx.GetContext(ctx, s.db.Cached(), &row, `SELECT n.block, b.importance FROM iteration_notes n
		LEFT JOIN blocks b ON b.run_id = n.run_id AND b.id = n.block
		WHERE n.run_id = ? AND n.number = ?`, run, n)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("read iteration %d: %w", n, sqldb.Classify(err))
	}
	return row.Block.String, row.Importance.Float64, row.Block.Valid, nil
}

// InFull counts the iterations of first..last that show in full: those no
// visible block covers. It sums the overlaps of the visible blocks, which
// are disjoint and few (the window bounds them), rather than reading the
// range's notes: a chapter or phase can span most of a long run.
func (s *Store) InFull(ctx context.Context, run string, first, last int) (int, error) {
	var folded int
	if err := sqlx.GetContext(ctx, s.db.Cached(), &folded, `SELECT COALESCE(SUM(CASE WHEN last_iter < ?3 THEN last_iter ELSE ?3 END - CASE WHEN first_iter > ?2 THEN first_iter ELSE ?2 END + 1), 0)
		FROM blocks WHERE run_id = ?1 AND visible = 1 AND first_iter <= ?3 AND last_iter >= ?2`, run, first, last); err != nil {
		return 0, fmt.Errorf("read blocks %d-%d: %w", first, last, sqldb.Classify(err))
	}
	return last - first + 1 - folded, nil
}

// Touch records an access, at iteration now, to the visible blocks that
// overlap first..last: their access count rises, last-accessed moves to
// now, and their importance is recomputed at once, in one transaction.
func (f *Folder) Touch(ctx context.Context, run string, first, last, now int) error {
	return f.Store.update(ctx, run, func(tx *sqlx.Tx) error {
		var rows []struct {
			ID      string `db:"id"`
			Last    int    `db:"last_iter"`
			Access  int    `db:"access_count"`
			Errors  int    `db:"error_count"`
			Changes int    `db:"change_count"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT id, last_iter, access_count, error_count, change_count FROM blocks
			WHERE run_id = ? AND visible = 1 AND first_iter <= ? AND last_iter >= ?`, run, last, first); err != nil {
			return fmt.Errorf("read blocks %d-%d: %w", first, last, sqldb.Classify(err))
		}
		for _, r := range rows {
			v := importance(f.Config, r.Last, r.Access+1, r.Errors, r.Changes, now)
			if _, err := tx.ExecContext(ctx, `UPDATE blocks SET access_count = access_count + 1, last_access_iter = ?, importance = ?
				WHERE run_id = ? AND id = ?`, now, v, run, r.ID); err != nil {
				return fmt.Errorf("touch block %s: %w", r.ID, sqldb.Classify(err))
			}
		}
		return nil
	})
}

// LayoutFold returns the run's iteration count when the newest visible
// chapter or phase (a block of level L3 or above: a milestone's chapter, a
// cascade) was made, 0 when none shows. Such a fold changes Long-term, so
// the window's prefix breaks there whatever else it holds: the window is
// laid out afresh from it (window.Options.LaidOut), and the Short-term
// blocks made since are shown where their iterations were, in the run's
// timeline, rather than at Short-term's end. It reads the partial index of
// visible blocks, as WorkingFrom does.
func (s *Store) LayoutFold(ctx context.Context, run string) (int, error) {
	var last sql.NullInt64
	if err := sqlx.GetContext(ctx, s.db.Cached(), &last, `SELECT max(created_iter) FROM blocks INDEXED BY blocks_visible WHERE run_id = ? AND visible = 1 AND level >= 3`, run); err != nil {
		return 0, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return int(last.Int64), nil
}

// StableAsOf returns the newest iteration a visible block made at or
// before iteration laidOut covers, 0 when none: what the window's
// summaries cover once the blocks made since are left to the timeline.
func (s *Store) StableAsOf(ctx context.Context, run string, laidOut int) (int, error) {
	var last sql.NullInt64
	if err := sqlx.GetContext(ctx, s.db.Cached(), &last, `SELECT max(last_iter) FROM blocks INDEXED BY blocks_visible WHERE run_id = ? AND visible = 1 AND created_iter <= ?`, run, laidOut); err != nil {
		return 0, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return int(last.Int64), nil
}

// WorkingFrom returns the first iteration after the last one a visible
// block covers: from there on, iterations show in full.
//
// The partial index of visible blocks is named: the planner would rather
// take blocks_made (run_id) and read every block the run ever made.
func (s *Store) WorkingFrom(ctx context.Context, run string) (int, error) {
	var last sql.NullInt64
	if err := sqlx.GetContext(ctx, s.db.Cached(), &last, `SELECT max(last_iter) FROM blocks INDEXED BY blocks_visible WHERE run_id = ? AND visible = 1`, run); err != nil {
		return 0, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return int(last.Int64) + 1, nil
}
