package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// sqlSelectStarted reads when one iteration started.
const sqlSelectStarted = `SELECT started_at FROM iterations WHERE run_id = ? AND number = ?`

// StartedAt returns when iteration n of a run started: the time of its
// first event. It is the zero time when the journal gave that event none,
// or when the run has no iteration n.
func (s *Store) StartedAt(ctx context.Context, runID string, n int) (time.Time, error) {
	st, err := s.reads.Prepared(ctx, sqlSelectStarted)
	if err != nil {
		return time.Time{}, err
	}
	var text string
	err = st.QueryRowxContext(ctx, runID, n).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read the start of iteration %d of run %s: %w", n, runID, sqldb.Classify(err))
	}
	return ParseTimeText(text), nil
}

// FirstFrom returns the first of iterations 1..last of a run that started
// at or after t, and last+1 when none did. A journal's events come in
// time order, and so do its iterations' starts: it halves the range at
// each step, reading about log2(last) iterations however long the run.
// An iteration without a time counts as started before t.
func (s *Store) FirstFrom(ctx context.Context, runID string, t time.Time, last int) (int, error) {
	lo, hi := 1, last+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		at, err := s.StartedAt(ctx, runID, mid)
		if err != nil {
			return 0, err
		}
		if !at.IsZero() && !at.Before(t) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}
