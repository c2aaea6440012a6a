package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// TestACutRecallShowsWhatItsRoomHolds: at 2,000 tokens a recalled output
// is bounded at 125 tokens, so that the thought, the call and the heading
// have the rest of the 250 a recall may take whole. A step that returns to
// a reservation, its call one line and no thought, leaves most of that
// rest unused: the recall now shows the output up to what the rest leaves
// (its fitted form), more flights than the bound's head and tail, and
// still takes no more than a recall may whole, with no room spare in the
// window for the wider form (Working's long steps fill it).
func TestACutRecallShowsWhatItsRoomHolds(t *testing.T) {
	t.Parallel()
	const budget = 2000
	output := reservation(14)
	cfg := fold.DefaultConfig(budget)
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count(output); n <= cfg.RecallReach()/2 {
		t.Fatalf("the output counts %d tokens; the test needs it over half the recalls' reach (%d), so that a recall cuts it", n, cfg.RecallReach()/2)
	}
	msgs := cancelAfterLookups(output, 130)
	cx, got := revisitWindow(t, budget, msgs, 1)
	if !strings.Contains(got, "you named MSJ4OA") {
		t.Fatalf("the pending call did not bring back the reservation; Retrieved:\n%s", got)
	}
	// What the output bound alone shows: its head and tail.
	it := &journal.Iteration{Number: 1, Status: journal.IterOK, Calls: []journal.ToolCall{{Name: "get_reservation_details",
		Args: []byte(`{"reservation_id":"MSJ4OA"}`), Result: &journal.ToolResult{Status: journal.StatusSuccess, Output: output}}}}
	bounded := fold.RenderL0(tok, it, cfg.RecallReach()/4).Markdown
	flights := func(s string) int { return strings.Count(s, `"flight_number":"HAT`) }
	if !fold.Truncated(got) || flights(got) <= flights(bounded) {
		t.Errorf("the recall shows %d flights, the output's bound alone %d; want more, and still cut (no spare room for the wider form).\nRetrieved:\n%s",
			flights(got), flights(bounded), got)
	}
	for _, s := range partitionOf(cx, window.Retrieved).Sections {
		if !strings.Contains(s.Name, "you named MSJ4OA") {
			continue
		}
		if cost := tok.Count("### "+s.Name+"\n") + s.Tokens + 1; cost > cfg.RecallReach()/2 {
			t.Errorf("the recall takes %d tokens, over the half of the reach a recall may take whole (%d)", cost, cfg.RecallReach()/2)
		}
	}
}

// TestARecallTooLongToShowWholeHasAFittedForm: a step whose thought is
// long takes, with its call and the output's bound, more than a recall may
// take whole (250 tokens at 2,000), and came back as its one line. Its
// fitted form cuts the output further, so that the thought, the call and
// the output's head and tail fit that bound; the window shows it in place
// of the line while the step's room holds it (window/fitted_test.go).
func TestARecallTooLongToShowWholeHasAFittedForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 2000
	cfg := fold.DefaultConfig(budget)
	msgs := cancelAfterLookups(reservation(14), 130)
	// Step 1 thinks at length before it reads the reservation.
	msgs[2]["content"] = "Before I change anything I want the booking in front of me. " + prose(91, 80)
	eng := importAgent(t, budget, msgs)
	run, err := eng.Journal.Run(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	recalls, err := memory.Recalled(ctx, eng, run)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(recalls, func(r window.Recalled) bool { return r.Covers == [2]int{1, 1} })
	if i < 0 {
		t.Fatalf("the pending call did not bring back iteration 1: %+v", recalls)
	}
	r := recalls[i]
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	room := window.RecallTextRoom(tok, r.Name, cfg.RecallReach(), cfg.RecallHold(true))
	if r.FullTokens <= room {
		t.Fatalf("the recall's whole form takes %d tokens, within the %d a recall may take alone; the test needs it over", r.FullTokens, room)
	}
	if r.Fitted == "" || r.FittedTokens > room || !strings.Contains(r.Fitted, "Before I change anything") ||
		!strings.Contains(r.Fitted, `Call get_reservation_details {"reservation_id":"MSJ4OA"}`) || !fold.Truncated(r.Fitted) {
		t.Errorf("want a fitted form of at most %d tokens with the thought, the call and a cut output; got %d tokens:\n%s", room, r.FittedTokens, r.Fitted)
	}
}
