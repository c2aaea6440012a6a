package journal

import (
	"context"
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// sqlSelectSaid reads the thoughts and user messages of a range of
// iterations, and no other event. An iteration's user messages come before
// its thought (one after it opens the next iteration), and its tool calls
// and outputs after: the scan stops at the thought, so the outputs, which
// can be long, are not read.
const sqlSelectSaid = `SELECT i.number, e.type, e.payload FROM iterations i
	JOIN events e ON e.run_id = i.run_id AND e.seq BETWEEN i.first_seq AND CASE WHEN i.thought_seq > 0 THEN i.thought_seq ELSE i.last_seq END
	WHERE i.run_id = ? AND i.number BETWEEN ? AND ? AND e.type IN ('` + TypeThought + `', '` + TypeUserMessage + `')
	ORDER BY e.seq`

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
	if err != nil {
		return nil, fmt.Errorf("read iterations %d-%d of run %s: %w", from, to, runID, sqldb.Classify(err))
	}
	defer rows.Close()
	out := map[int]string{}
	thought := map[int]bool{}
	for rows.Next() {
		var n int
		var e Event
		if err := rows.Scan(&n, &e.Type, &e.Payload); err != nil {
			return nil, fmt.Errorf("read iterations %d-%d of run %s: %w", from, to, runID, sqldb.Classify(err))
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
		return nil, fmt.Errorf("read iterations %d-%d of run %s: %w", from, to, runID, sqldb.Classify(err))
	}
	return out, nil
}
