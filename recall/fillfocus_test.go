package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/recall"
)

// TestABestHitLongerThanHalfTheRoomGivesWay: under a small budget, the
// second best hit is a long turn that says the question's rare word
// again and again, and would take more than half the room; the next are
// short turns, each of which answers it for a pier. The long one gives
// way to them: past half the room, one hit would take more than all the
// others together. Under a larger budget it is taken with them.
func TestABestHitLongerThanHalfTheRoomGivesWay(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	lines[50] = "Caro: The Westbury ferry leaves at nine."
	lines[100] = "Mel: The Westbury ferry, " + strings.Repeat("the Westbury ferry with its windy deck and the gulls that follow it, ", 32) + "is a fine boat."
	short := piers(lines)
	ask := func(budget int) []memory.Retrieved {
		eng, run := dialogue(t, lines, budget, nil)
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"When does the Westbury ferry leave?"}, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	for _, tc := range []struct {
		budget int
		long   bool
	}{{1000, false}, {4000, true}} {
		hits := ask(tc.budget)
		if _, ok := hitFor(hits, 51); !ok {
			t.Fatalf("at %d tokens the best turn (51) is not a hit: %+v", tc.budget, hits)
		}
		for _, at := range short {
			if _, ok := hitFor(hits, at+1); !ok {
				t.Errorf("at %d tokens the short turn at iteration %d is not a hit", tc.budget, at+1)
			}
		}
		if _, ok := hitFor(hits, 101); ok != tc.long {
			t.Errorf("at %d tokens the long turn (101) is a hit: %v, want %v", tc.budget, ok, tc.long)
		}
	}
}
