package memory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// TestALongHitIsRenderedOnlyWhenDue: a fill over a conversation of short
// lamp checks and long lamp logs ranked among them takes the same hits, in
// the same order, at every size of room, whether it renders every hit it
// is offered or leaves the long ones unrendered until their due: rooms
// that fill while some long logs wait, and a room with space for all.
// When the short hits fill the room first, the long logs still waiting
// are never rendered. It fails when the least a hit can cost is reckoned
// above what it costs (its due comes late, and it is taken out of order).
func TestALongHitIsRenderedOnlyWhenDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, run := lampLog(t, 800)
	q := recall.Query{Keywords: []string{"lighthouse keeper lamp check"}}
	for _, room := range []int{2000, 3000, 4000, 6000, 60000} {
		memory.FillRenderAll(eng, true)
		want, renderedAll, err := memory.FillHits(ctx, eng, run, q, room)
		if err != nil {
			t.Fatal(err)
		}
		memory.FillRenderAll(eng, false)
		got, rendered, err := memory.FillHits(ctx, eng, run, q, room)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("room %d: the fill took %d hits leaving long ones unrendered, %d rendering all; first difference at %d",
				room, len(got), len(want), firstDifference(got, want))
		}
		long := 0
		for _, h := range want {
			if h.First%40 == 0 {
				long++
			}
		}
		switch {
		case room <= 3000 && rendered >= renderedAll:
			t.Errorf("room %d: the fill rendered %d ranges, %d rendering all: the long logs it never took were rendered", room, rendered, renderedAll)
		case room == 60000 && long < 15:
			t.Errorf("room %d: the fill took %d of the 20 long logs, want them once their due came", room, long)
		}
		t.Logf("room %d: %d hits (%d long), %d ranges rendered, %d rendering all", room, len(got), long, rendered, renderedAll)
	}
}

// firstDifference is the first place where a and b differ.
func firstDifference(a, b []recall.Recall) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// lampLog is an engine over a conversation of n turns: the even ones of
// the first 24 a short lamp check by the lighthouse keeper, every fortieth
// a long log of one (longer further on), the other even ones a harbour
// lamp lit, the odd ones about the weather.
func lampLog(t *testing.T, n int) (*memory.Engine, journal.Run) {
	t.Helper()
	var lines []string
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("Turn %d: the weather at the harbour was calm and the boats stayed in.", i)
		switch {
		case i%40 == 0:
			line = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d in full. %s", i, i,
				strings.Repeat(fmt.Sprintf("Wick trimmed, lens polished, oil level read and written in ledger page %d. ", i), 4+i/40))
		case i%2 == 0 && i <= 24:
			line = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d.", i, i)
		case i%2 == 0:
			line = fmt.Sprintf("Turn %d: the harbour lamp was lit at dusk, number %d.", i, i)
		}
		lines = append(lines, line)
	}
	events := testrun.Conversation(t, testrun.RunID, "Keep the harbour log", lines)
	eng := testrun.Feed(t, events, 8000, len(events))
	run, err := eng.Journal.Run(context.Background(), testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return eng, run
}
