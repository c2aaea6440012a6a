package memory

import "testing"

// TestMoreHits: a fill that left room asks for as many hits as the room
// would hold at the tokens each took, a quarter more, at least twice as
// many as before, never past recall.MaxFillHits.
func TestMoreHits(t *testing.T) {
	for _, c := range []struct {
		limit, taken, used, room, want int
	}{
		{100, 100, 10000, 30000, 375},  // the room holds three times what was taken
		{100, 100, 20000, 30000, 200},  // at least twice as many
		{100, 0, 0, 30000, 200},        // nothing taken: twice as many
		{400, 400, 2000, 32000, 1600},  // bounded by recall.MaxFillHits
		{1000, 900, 9000, 30000, 1600}, // twice 1,000 is past the bound too
	} {
		if got := moreHits(c.limit, c.taken, c.used, c.room); got != c.want {
			t.Errorf("moreHits(%d, %d, %d, %d) = %d, want %d", c.limit, c.taken, c.used, c.room, got, c.want)
		}
	}
}
