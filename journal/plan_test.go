package journal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// TestReadsAtNumbersSearchTheIterationsFirst checks SQLite's plan of the
// reads by a list of numbers: with the list as placeholders, the planner
// took the run's events as the outer loop, and a read of 64 iterations
// of a run of 100,000 took seconds.
func TestReadsAtNumbersSearchTheIterationsFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	numbers := make([]int, 64)
	for i := range numbers {
		numbers[i] = 1 + 1500*i
	}
	list, args := sqldb.InList(numbers)
	for name, q := range map[string]string{
		"SaidAt":       sqlSaid + `i.number IN ` + list + sqlSaidOrder,
		"IterationsAt": sqlSelectEventsAt + list + ` ORDER BY e.seq`,
	} {
		rows, err := s.db.Read.QueryxContext(ctx, "EXPLAIN QUERY PLAN "+q, append([]any{"run"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if len(plan) < 2 || !strings.HasPrefix(plan[0], "SEARCH i ") || !strings.Contains(plan[1], "seq>? AND seq<?") {
			t.Errorf("%s: plan\n%s\nwant the iterations searched first, then the events by seq", name, strings.Join(plan, "\n"))
		}
	}
}
