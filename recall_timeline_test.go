package memory

import (
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestFirstOfEachKeepsTheFirstMade: of recalls listed most recently made
// first, one whose range an earlier-made recall holds is left out, so the
// timeline keeps showing the first where it stands; a wider later recall
// stays.
func TestFirstOfEachKeepsTheFirstMade(t *testing.T) {
	t.Parallel()
	rs := []recall.Recall{
		{ID: 4, First: 10, Last: 12}, // wider than 1: stays
		{ID: 3, First: 20, Last: 20}, // held by 2
		{ID: 2, First: 19, Last: 21},
		{ID: 1, First: 11, Last: 11},
	}
	var got []int
	for _, r := range firstOfEach(rs) {
		got = append(got, r.ID)
	}
	if len(got) != 3 || got[0] != 4 || got[1] != 2 || got[2] != 1 {
		t.Fatalf("firstOfEach kept %v, want [4 2 1]", got)
	}
}
