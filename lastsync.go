package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/window"
)

// LastSync is how the newest memory file a sync wrote for a run began like
// the one before it: the prefix a provider's prompt cache reuses.
type LastSync struct {
	// Iteration is the run's newest iteration at that sync.
	Iteration int `json:"iteration" db:"iteration"`
	// Tokens and Bytes size the new file; PrevBytes the one before it.
	Tokens    int `json:"tokens" db:"tokens"`
	Bytes     int `json:"bytes" db:"bytes"`
	PrevBytes int `json:"prev_bytes" db:"prev_bytes"`
	// KeptBytes is the length of the prefix the two files share.
	KeptBytes int `json:"kept_bytes" db:"kept_bytes"`
	// Break is where the new file first differs ("" past its end).
	Break window.Place `json:"break"`
}

// PrefixKept is the share of the previous file's bytes the new one begins
// with, as simulate's prefix_kept: 1 when there was no previous file.
func (l LastSync) PrefixKept() float64 {
	if l.PrevBytes == 0 {
		return 1
	}
	return float64(l.KeptBytes) / float64(l.PrevBytes)
}

// CachedTokens estimates the new file's tokens in the shared prefix, in
// proportion to its bytes (counting them would cost a sync a tokenizer pass
// over the whole file).
func (l LastSync) CachedTokens() int {
	if l.Bytes == 0 {
		return 0
	}
	return int(float64(l.Tokens)*float64(l.KeptBytes)/float64(l.Bytes) + 0.5)
}

// RecordSync compares the memory file a sync made (cx, its Markdown) with
// the one it replaces (prev, "" when there was none) and keeps how much of
// it a prompt cache would reuse, for `show` and the HTML view.
func (e *Engine) RecordSync(ctx context.Context, run string, iteration int, prev string, cx *window.Context) error {
	cur := cx.Markdown()
	i := window.SharedPrefix(prev, cur)
	place := cx.PlaceAt(i)
	return e.db.Update(ctx, run, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO last_sync (run_id, iteration, tokens, bytes, prev_bytes, kept_bytes, break_partition, break_source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET iteration = excluded.iteration, tokens = excluded.tokens,
			bytes = excluded.bytes, prev_bytes = excluded.prev_bytes, kept_bytes = excluded.kept_bytes,
			break_partition = excluded.break_partition, break_source = excluded.break_source`, run, iteration, cx.Tokens, len(cur), len(prev), i, place.Partition, place.Source)
		if err != nil {
			return fmt.Errorf("record the sync of run %s: %w", run, sqldb.Classify(err))
		}
		return nil
	})
}

// LastSyncOf returns what RecordSync kept for a run; ok is false when no
// sync recorded one.
func (e *Engine) LastSyncOf(ctx context.Context, run string) (LastSync, bool, error) {
	var row struct {
		LastSync
		Partition string `db:"break_partition"`
		Source    string `db:"break_source"`
	}
	err := sqlx.GetContext(ctx, e.db.Read, &row, `SELECT iteration, tokens, bytes, prev_bytes, kept_bytes, break_partition, break_source
		FROM last_sync WHERE run_id = ?`, run)
	if errors.Is(err, sql.ErrNoRows) {
		return LastSync{}, false, nil
	}
	if err != nil {
		return LastSync{}, false, fmt.Errorf("read the last sync of run %s: %w", run, sqldb.Classify(err))
	}
	l := row.LastSync
	l.Break = window.Place{Partition: row.Partition, Source: row.Source}
	return l, true, nil
}
