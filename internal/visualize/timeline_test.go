package visualize

import (
	"fmt"
	"reflect"
	"testing"
)

func TestTimeline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    Coverage
		want []Segment
	}{
		{"empty run", Coverage{}, []Segment{}},
		{"nothing folded", Coverage{Iterations: 5}, []Segment{{First: 1, Last: 5, Shade: "L0"}}},
		{
			"blocks at their levels, the rest in full",
			Coverage{Iterations: 12, Visible: []Span{
				{Block: "L3-1-4", Level: 3, First: 1, Last: 4},
				{Block: "L2-5-6", Level: 2, First: 5, Last: 6},
				{Block: "L2-7-9", Level: 2, First: 7, Last: 9},
			}},
			[]Segment{
				{First: 1, Last: 4, Shade: "L3", Level: 3, Block: "L3-1-4"},
				{First: 5, Last: 6, Shade: "L2", Level: 2, Block: "L2-5-6"},
				{First: 7, Last: 9, Shade: "L2", Level: 2, Block: "L2-7-9"}, // a block of its own
				{First: 10, Last: 12, Shade: "L0"},
			},
		},
		{
			"pinned in a block, bookmarked in full; pins outside the block are not its own",
			Coverage{Iterations: 8, Visible: []Span{{Block: "L1-1-5", Level: 1, First: 1, Last: 5, Pinned: []int{3, 7}}}, Bookmarks: []int{7, 99}},
			[]Segment{
				{First: 1, Last: 2, Shade: "L1", Level: 1, Block: "L1-1-5"},
				{First: 3, Last: 3, Shade: "pinned", Level: 1, Block: "L1-1-5"},
				{First: 4, Last: 5, Shade: "L1", Level: 1, Block: "L1-1-5"},
				{First: 6, Last: 6, Shade: "L0"},
				{First: 7, Last: 7, Shade: "pinned"},
				{First: 8, Last: 8, Shade: "L0"},
			},
		},
		{
			"recalls colour folded iterations only, and win over pins",
			Coverage{Iterations: 10,
				Visible:  []Span{{Block: "L2-1-4", Level: 2, First: 1, Last: 4, Pinned: []int{3}}, {Block: "L4-5-7", Level: 4, First: 5, Last: 7}},
				Recalled: []Recalled{{Recall: 2, First: 3, Last: 9}, {Recall: 1, First: 1, Last: 3}},
			},
			[]Segment{
				{First: 1, Last: 2, Shade: "recalled", Level: 2, Block: "L2-1-4", Recall: 1},
				{First: 3, Last: 4, Shade: "recalled", Level: 2, Block: "L2-1-4", Recall: 2},
				{First: 5, Last: 7, Shade: "recalled", Level: 4, Block: "L4-5-7", Recall: 2},
				{First: 8, Last: 10, Shade: "L0"},
			},
		},
		{
			"ranges past the run's end are clipped",
			Coverage{Iterations: 3, Visible: []Span{{Block: "L2-2-9", Level: 2, First: 2, Last: 9}}, Recalled: []Recalled{{Recall: 4, First: 3, Last: 20}}},
			[]Segment{
				{First: 1, Last: 1, Shade: "L0"},
				{First: 2, Last: 2, Shade: "L2", Level: 2, Block: "L2-2-9"},
				{First: 3, Last: 3, Shade: "recalled", Level: 2, Block: "L2-2-9", Recall: 4},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Timeline(tc.c); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Timeline:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestTimelineBounded checks that segments follow what the window shows,
// not the length of the run.
func TestTimelineBounded(t *testing.T) {
	t.Parallel()
	c := Coverage{Iterations: 100000}
	for first := 1; first <= 99000; first += 1000 {
		c.Visible = append(c.Visible, Span{Block: fmt.Sprintf("L4-%d", first), Level: 4, First: first, Last: first + 999})
	}
	if got := Timeline(c); len(got) != 100 || got[98].Last != 99000 || got[99].Shade != ShadeL0 {
		t.Fatalf("%d segments: %+v", len(got), got)
	}
}
