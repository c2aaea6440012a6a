package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/recall"
)

// TestAFillTakesWhatItsRoomHolds: the room decides how many hits a
// question to memory takes, not recall max_hits. A conversation of 700
// short turns, half of them the lighthouse keeper's, under a budget of
// 16,000 tokens: the focused window has room for far more of the keeper's
// turns than max_hits (100), or the 128 recalls a timeline offers, and
// shows them, within its budget.
func TestAFillTakesWhatItsRoomHolds(t *testing.T) {
	t.Parallel()
	const budget = 16000
	eng := testrun.Feed(t, testrun.Conversation(t, testrun.RunID, "Talk about the harbour", harbour(700, 2)), budget, 1000)
	_, _, hits := fillRecall(t, eng, "lighthouse keeper lamp check")
	if most := recall.DefaultConfig().MaxHits; len(hits) <= most {
		t.Fatalf("the recall took %d hits, no more than max_hits (%d): its room holds more", len(hits), most)
	}
	got, cx := retrievedText(t, eng)
	if n := eng.Tokenizer.Count(cx.Markdown()); n > budget {
		t.Fatalf("the window has %d tokens, budget %d", n, budget)
	}
	if shown := strings.Count(got, "lighthouse keeper"); shown <= 200 {
		t.Errorf("the focused window shows %d of the keeper's turns (%d hits, %d tokens of %d): it has room for more",
			shown, len(hits), eng.Tokenizer.Count(cx.Markdown()), budget)
	}
}

// TestEachStopsWhenAskedTo: Each hands the hits Retrieve would return,
// in its order, and no more once the caller says to stop.
func TestEachStopsWhenAskedTo(t *testing.T) {
	t.Parallel()
	lines := fillers(200)
	for _, n := range []int{20, 60, 100, 140, 180} {
		lines[n-1] = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d.", n, n)
	}
	eng, run := dialogue(t, lines, 4000, nil)
	ctx := context.Background()
	q := recall.Query{Keywords: []string{"lighthouse keeper lamp check"}, DryRun: true, Fill: true}
	all, err := eng.Recall.Retrieve(ctx, run, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 5 {
		t.Fatalf("set-up: the recall found %d hits, want the keeper's five at least", len(all))
	}
	var got []recall.Recall
	err = eng.Recall.Each(ctx, run, q, func(h recall.Recall) (bool, error) {
		got = append(got, h)
		return len(got) < 3, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Each handed %d hits after the caller stopped at 3", len(got))
	}
	for i := range got {
		if got[i] != all[i] {
			t.Errorf("hit %d: Each handed %+v, Retrieve returned %+v", i, got[i], all[i])
		}
	}
}

// harbour is a conversation of n short turns about the weather at a
// harbour; the lighthouse keeper logs a lamp check in each turn whose
// number is a multiple of every.
func harbour(n, every int) []string {
	lines := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("Turn %d: the weather at the harbour was calm and the boats stayed in.", i)
		if i%every == 0 {
			line = fmt.Sprintf("Turn %d: the lighthouse keeper logged lamp check %d.", i, i)
		}
		lines = append(lines, line)
	}
	return lines
}

// TestTheStepAfterALargeFillKeepsItsBestHits: a window laid out in the
// run's timeline offers 128 recalls; after a question whose fill took
// hundreds, the step after it keeps the fill's best hits among them, not
// its last.
func TestTheStepAfterALargeFillKeepsItsBestHits(t *testing.T) {
	t.Parallel()
	lines := harbour(701, 2)
	events := testrun.Conversation(t, testrun.RunID, "Talk about the harbour", lines)
	next := events[len(events)-1:]
	eng := testrun.Feed(t, events[:len(events)-1], 16000, 1000)
	_, _, hits := fillRecall(t, eng, "lighthouse keeper lamp check")
	if len(hits) <= 128 {
		t.Fatalf("set-up: the fill took %d hits, want more than a timeline offers", len(hits))
	}
	testrun.FeedMore(t, eng, next, 1)
	got, cx := retrievedText(t, eng)
	if cx.Focused {
		t.Fatal("set-up: the step after the question has a focused window")
	}
	// The best hit Working did not show in full: the best ones are the
	// newest turns, which it does.
	var best memory.Retrieved
	for _, h := range hits {
		if !h.Visible {
			best = h
			break
		}
	}
	if !strings.Contains(got, fmt.Sprintf("Turn %d: the lighthouse keeper", best.Matched[0])) {
		t.Errorf("the step after the question lost the fill's best hit past Working, turn %d:\n%.600s", best.Matched[0], got)
	}
}
