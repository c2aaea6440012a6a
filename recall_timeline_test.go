package memory

import (
	"fmt"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestHeldByTheOneMadeBefore: of recalls listed most recently made first,
// one whose range an earlier-made recall has too maps to the latest such
// made before it (a chain, which the timeline follows to the one that
// shows); a wider or narrower one is held by none.
func TestHeldByTheOneMadeBefore(t *testing.T) {
	t.Parallel()
	rs := []recall.Recall{
		{ID: 5, First: 20, Last: 20},
		{ID: 4, First: 10, Last: 12},
		{ID: 3, First: 20, Last: 20},
		{ID: 2, First: 19, Last: 21}, // wider than 3 and 5: holds neither
		{ID: 1, First: 20, Last: 20},
	}
	var got []string
	for id, h := range heldBy(rs) {
		got = append(got, fmt.Sprintf("%d:%d", id, h.ID))
	}
	slices.Sort(got)
	if fmt.Sprint(got) != "[3:1 5:3]" {
		t.Fatalf("heldBy = %v, want [3:1 5:3]", got)
	}
}
