package journal

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// sqlSelectSaid reads the thoughts and user messages of a range of
// iterations, and no other event. An iteration's user messages come before
// its thought (one after it opens the next iteration), and its tool calls
// and outputs after: the scan stops at the thought, so the outputs, which
// can be long, are not read.
const (
	sqlSelectSaid = sqlSaid + `i.number BETWEEN ? AND ?` + sqlSaidOrder
	// CROSS JOIN keeps SQLite's planner reading the iterations first: with
	// a list of numbers as placeholders, it would scan the run's events.
	sqlSaid = `SELECT i.number, e.type, e.payload FROM iterations i CROSS JOIN events e
	WHERE e.run_id = i.run_id AND e.seq BETWEEN i.first_seq AND CASE WHEN i.thought_seq > 0 THEN i.thought_seq ELSE i.last_seq END
	AND i.run_id = ? AND `
	sqlSaidOrder = ` AND e.type IN ('` + TypeThought + `', '` + TypeUserMessage + `') ORDER BY e.seq`
)

// Said returns what each iteration from..to of a run said last in words:
// its thought, or when it has none its last user message. Iterations that
// said nothing are left out. It reads only those events, so it costs the
// same whatever the tools returned.
func (s *Store) Said(ctx context.Context, runID string, from, to int) (map[int]string, error) {
	st, err := s.reads.Prepared(ctx, sqlSelectSaid)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryxContext(ctx, runID, from, to)
	where := fmt.Sprintf("iterations %d-%d of run %s", from, to, runID)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", where, sqldb.Classify(err))
	}
	return scanSaid(rows, where)
}

// SaidAt is Said for the iterations numbers, which need not be next to
// each other, in one statement (a thousand at a time): what a recall
// reads of the turns around its hits, across a long run.
func (s *Store) SaidAt(ctx context.Context, runID string, numbers []int) (map[int]string, error) {
	out := map[int]string{}
	err := sqldb.InChunks(numbers, func(chunk []int, list string, args []any) error {
		where := fmt.Sprintf("%d iterations (%d to %d) of run %s", len(chunk), chunk[0], chunk[len(chunk)-1], runID)
		rows, err := s.db.Read.QueryxContext(ctx, sqlSaid+`i.number IN `+list+sqlSaidOrder, append([]any{runID}, args...)...)
		if err != nil {
			return fmt.Errorf("read %s: %w", where, sqldb.Classify(err))
		}
		said, err := scanSaid(rows, where)
		maps.Copy(out, said)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanSaid reads Said's rows, and closes them; where names what they are
// of, for errors.
func scanSaid(rows *sqlx.Rows, where string) (map[int]string, error) {
	defer rows.Close()
	out := map[int]string{}
	thought := map[int]bool{}
	for rows.Next() {
		var n int
		var e Event
		if err := rows.Scan(&n, &e.Type, &e.Payload); err != nil {
			return nil, fmt.Errorf("read %s: %w", where, sqldb.Classify(err))
		}
		switch e.Type {
		case TypeThought:
			p, err := e.Thought()
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(p.Content) != "" {
				out[n], thought[n] = p.Content, true
			}
		case TypeUserMessage:
			if thought[n] {
				continue
			}
			p, err := e.UserMessage()
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(p.Content) != "" {
				out[n] = p.Content
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", where, sqldb.Classify(err))
	}
	return out, nil
}
