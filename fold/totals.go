package fold

import (
	"context"
	"fmt"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// Totals are a run's whole-history figures, for inspection (`show`); they
// read every note and block of the run, so hot paths don't use them.
type Totals struct {
	// RawTokens is every noted iteration in full, tool outputs whole
	// (Note.RawTokens; L0 for notes made before it was kept).
	RawTokens int `json:"raw_tokens"`
	// Folds counts the blocks ever made, by trigger.
	Folds map[string]int `json:"folds"`
	// WithRoom counts, by trigger, the folds the scheduler made while the
	// window still had room (Block.Usage at most 1), cascades aside: they
	// merge blocks, they take nothing out of Working.
	WithRoom map[string]int `json:"with_room"`
}

// RoomReasons says why each trigger folds while the window has room.
var RoomReasons = map[string]string{
	TriggerMilestone: "a caller declared it, or the history had outgrown the window before",
	TriggerInterval:  "keeps the window near pressure.low once the history has outgrown it",
	TriggerPressure:  "pressure.high is set under 1",
}

// Totals sums the run's raw history and counts its folds by trigger.
func (s *Store) Totals(ctx context.Context, run string) (Totals, error) {
	t := Totals{Folds: map[string]int{}, WithRoom: map[string]int{}}
	if err := s.db.Read.GetContext(ctx, &t.RawTokens, `SELECT COALESCE(SUM(CASE WHEN raw_tokens > l0_tokens THEN raw_tokens ELSE l0_tokens END), 0) FROM iteration_notes WHERE run_id = ?`, run); err != nil {
		return t, fmt.Errorf("sum raw tokens: %w", sqldb.Classify(err))
	}
	rows, err := s.db.Read.QueryContext(ctx, `SELECT trigger, COUNT(*),
		SUM(CASE WHEN made_at_usage > 0 AND made_at_usage <= 1 AND trigger != ? THEN 1 ELSE 0 END) FROM blocks WHERE run_id = ? GROUP BY trigger`, TriggerCascade, run)
	if err != nil {
		return t, fmt.Errorf("count folds: %w", sqldb.Classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var trigger string
		var n, room int
		if err := rows.Scan(&trigger, &n, &room); err != nil {
			return t, fmt.Errorf("count folds: %w", err)
		}
		t.Folds[trigger] = n
		if room > 0 {
			t.WithRoom[trigger] = room
		}
	}
	return t, rows.Err()
}
