package visualize

import (
	"fmt"
	"slices"
)

// Shades: how the window shows an iteration, the colour of its place on the
// timeline.
const (
	ShadeL0       = "L0" // in full, in Working
	ShadeL1       = "L1"
	ShadeL2       = "L2"
	ShadeL3       = "L3"
	ShadeL4       = "L4"
	ShadePinned   = "pinned"   // kept in detail inside its block, or bookmarked
	ShadeRecalled = "recalled" // folded, and brought back into Retrieved
)

// Span is a visible block as the timeline needs it.
type Span struct {
	Block string
	Level int
	First int
	Last  int
	// Pinned are the iterations the block keeps in detail.
	Pinned []int
}

// Recalled is a range the window's Retrieved partition shows.
type Recalled struct {
	Recall int
	First  int
	Last   int
}

// Coverage is what decides the shade of each iteration of a run.
type Coverage struct {
	Iterations int
	// Visible are the blocks the window shows; an iteration no visible
	// block covers shows in full (L0).
	Visible []Span
	// Bookmarks are bookmarked iterations.
	Bookmarks []int
	// Recalled are the recalls the window shows (in full or as lines),
	// newest first: where two overlap, the first listed names the range.
	Recalled []Recalled
}

// Segment is a run of consecutive iterations with the same shade, in the
// same visible block (or none) and brought back by the same recall (or
// none). Segments keep the timeline's size bounded by what the window
// holds, not by the length of the run.
type Segment struct {
	First int    `json:"first"`
	Last  int    `json:"last"`
	Shade string `json:"shade"`
	// Level is the level the iterations show at when not recalled or
	// pinned: 0 in Working, else their visible block's.
	Level int `json:"level"`
	// Block is the visible block covering the iterations, "" in Working.
	Block string `json:"block,omitempty"`
	// Recall is the id of the recall that brought them back, 0 if none.
	Recall int `json:"recall,omitempty"`
}

// Timeline shades every iteration 1..c.Iterations and groups them into
// segments, oldest first:
//   - in a visible block at level N: LN; not covered by one: L0;
//   - kept in detail by its block (pinned), or bookmarked: pinned;
//   - folded, and in a recall the window shows: recalled (a recall of an
//     iteration already in full brings nothing back, so it stays L0).
//
// Recalled wins over pinned, and pinned over the level. Blocks and recalls
// reaching past the run's end are clipped to it.
func Timeline(c Coverage) []Segment {
	n := c.Iterations
	if n <= 0 {
		return []Segment{}
	}
	type cell struct {
		level  int
		block  int // index into visible + 1; 0: none
		pinned bool
		recall int
	}
	cells := make([]cell, n+1)
	visible := slices.Clone(c.Visible)
	// Older blocks first, so that if two overlapped the newer would win,
	// as it would in the store.
	slices.SortStableFunc(visible, func(a, b Span) int { return a.First - b.First })
	for i, s := range visible {
		for k := max(s.First, 1); k <= min(s.Last, n); k++ {
			cells[k] = cell{level: s.Level, block: i + 1}
		}
	}
	for i, s := range visible {
		for _, p := range s.Pinned {
			if p >= 1 && p <= n && cells[p].block == i+1 {
				cells[p].pinned = true
			}
		}
	}
	for _, b := range c.Bookmarks {
		if b >= 1 && b <= n {
			cells[b].pinned = true
		}
	}
	for _, r := range c.Recalled {
		for k := max(r.First, 1); k <= min(r.Last, n); k++ {
			if cells[k].block != 0 && cells[k].recall == 0 {
				cells[k].recall = r.Recall
			}
		}
	}
	out := []Segment{}
	for k := 1; k <= n; k++ {
		x := cells[k]
		seg := Segment{First: k, Last: k, Level: x.level, Shade: fmt.Sprintf("L%d", x.level), Recall: x.recall}
		if x.block != 0 {
			seg.Block = visible[x.block-1].Block
		}
		switch {
		case x.recall != 0:
			seg.Shade = ShadeRecalled
		case x.pinned:
			seg.Shade = ShadePinned
		}
		if len(out) > 0 {
			last := &out[len(out)-1]
			if last.Last == k-1 && last.Shade == seg.Shade && last.Block == seg.Block && last.Recall == seg.Recall {
				last.Last = k
				continue
			}
		}
		out = append(out, seg)
	}
	return out
}
