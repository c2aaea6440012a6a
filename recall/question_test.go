package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// dialogue opens an engine over a conversation of lines, with the recall
// settings tune makes, brought up to date under budget.
func dialogue(t *testing.T, lines []string, budget int, tune func(*recall.Config)) (*memory.Engine, journal.Run) {
	t.Helper()
	return dialogueOf(t, testrun.Conversation(t, "talk", "A conversation", lines), budget, tune)
}

// dialogueOf opens an engine over the journal events of run "talk", with
// the recall settings tune makes, brought up to date under budget.
func dialogueOf(t *testing.T, events []journal.Event, budget int, tune func(*recall.Config)) (*memory.Engine, journal.Run) {
	t.Helper()
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: pgtest.Target(t, t.TempDir()), Budget: budget, Recall: tune})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Journal.Append(ctx, "talk", journal.FormatDelta, events); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, "talk"); err != nil {
		t.Fatal(err)
	}
	run, err := eng.Journal.Run(ctx, "talk")
	if err != nil {
		t.Fatal(err)
	}
	return eng, run
}

// fillers are n lines that match none of the tests' questions.
func fillers(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("Turn %d: chatting about the weather, number %d of many, nothing more to report today.", i+1, i+1)
	}
	return lines
}

// hitFor returns the hit that matched iteration n, and whether there is one.
func hitFor(hits []memory.Retrieved, n int) (memory.Retrieved, bool) {
	for _, h := range hits {
		if h.Matched[0] <= n && n <= h.Matched[1] {
			return h, true
		}
	}
	return memory.Retrieved{}, false
}

// TestExchangeBringsTheOtherHalfOfAQuestion: past the best hit, a hit
// comes back with the turn before it when that turn asked a question (the
// hit may answer it), with the turn after it when the hit asked one, and
// alone when its neighbours only share its time, or when the question
// before it shares no word with the recall's: that half seldom holds what
// the recall asks, and would take the room of another hit.
func TestExchangeBringsTheOtherHalfOfAQuestion(t *testing.T) {
	t.Parallel()
	lines := fillers(200)
	lines[9] = "Lemon drizzle cake, lemon drizzle cake!"
	lines[49] = "Mel: Which cake did you bake for the school fair?"
	lines[50] = "Caro: A lemon drizzle cake with poppy seeds."
	lines[51] = "Mel: Lovely, see you soon then."
	lines[119] = "Mel: The weather held up nicely for the stalls."
	lines[120] = "Caro: The lemon drizzle sold out within the hour."
	lines[149] = "Caro: By the way, have you ever tried the lemon drizzle cake from the bakery on the corner?"
	lines[150] = "Mel: Only once, a lemon slice at my aunt's house in the spring."
	lines[169] = "Mel: What did you bring to the picnic on Sunday?"
	lines[170] = "Caro: A lemon drizzle cake, still warm from the oven."
	eng, run := dialogue(t, lines, 2000, func(c *recall.Config) { c.Focus, c.SecondHop = 1, -1 })
	hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"lemon drizzle cake"}, DryRun: true, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		matched int
		want    [2]int
		why     string
	}{
		{51, [2]int{50, 51}, "the question it answers"},
		{121, [2]int{121, 121}, "nothing: its neighbours asked nothing"},
		{150, [2]int{150, 151}, "the answer to its question"},
		{171, [2]int{171, 171}, "nothing: the question it answers shares no word with the recall"},
	} {
		h, ok := hitFor(hits, c.matched)
		if !ok {
			t.Errorf("iteration %d is not a hit: %+v", c.matched, hits)
			continue
		}
		if h.Iterations != c.want {
			t.Errorf("hit %d came back as %v, want %v (%s)", c.matched, h.Iterations, c.want, c.why)
		}
	}
}

// TestSecondHopFindsWhatTheQuestionDoesNotName: the question names the
// violin, and three turns about it share a rare word (the town) with a
// fourth that says nothing of violins. The second search, on the words the
// first hits share, brings that fourth turn back; without it, it is not a
// hit at all. The first search's best hit keeps its place.
func TestSecondHopFindsWhatTheQuestionDoesNotName(t *testing.T) {
	t.Parallel()
	lines := westburyLines()
	ask := func(hop int) []memory.Retrieved {
		eng, run := dialogue(t, lines, 2000, func(c *recall.Config) { c.SecondHop = hop })
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"Which instrument does Jon play, the violin?"}, DryRun: true, Fill: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Matched != [2]int{30, 30} {
			t.Fatalf("second hop %d: the best hit is not iteration 30: %+v", hop, hits)
		}
		return hits
	}
	if _, ok := hitFor(ask(-1), 140); ok {
		t.Fatal("set-up: iteration 140 is a hit without the second search")
	}
	if _, ok := hitFor(ask(8), 140); !ok {
		t.Error("the second search did not bring back iteration 140, which shares the first hits' rare word")
	}
}

// westburyLines is a run of fillers in which three turns about Jon's
// violin share a rare word, the town, with a fourth (iteration 140) that
// says nothing of violins.
func westburyLines() []string {
	lines := fillers(200)
	lines[29] = "Jon plays the violin in the Westbury orchestra."
	lines[59] = "Jon's violin teacher in Westbury says he practises daily."
	lines[89] = "The Westbury violin recital was the best one yet."
	lines[139] = "Rehearsals at Westbury hall start at seven on Thursdays."
	return lines
}

// TestASecondHopForARecallPastItsFocus: a recall with a limit gets the
// second search too when it asks for more hits than its focus: the fourth
// Westbury turn, which says nothing of violins, comes back among ten hits
// as it does in a fill. A recall of five hits, which the second hop could
// not reorder (it keeps the best five in their places) and which does
// without it, gives the same hits with the second hop on or off.
func TestASecondHopForARecallPastItsFocus(t *testing.T) {
	t.Parallel()
	lines := westburyLines()
	ask := func(hop, limit int) []memory.Retrieved {
		eng, run := dialogue(t, lines, 2000, func(c *recall.Config) { c.SecondHop, c.Focus = hop, 5 })
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"Which instrument does Jon play, the violin?"}, DryRun: true, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if _, ok := hitFor(ask(-1, 10), 140); ok {
		t.Fatal("set-up: iteration 140 is among ten hits without the second search")
	}
	if _, ok := hitFor(ask(8, 10), 140); !ok {
		t.Error("a recall of ten hits did not bring back iteration 140, which shares the first hits' rare word")
	}
	off, on := ask(-1, 5), ask(8, 5)
	if len(on) != len(off) {
		t.Fatalf("five hits: %d with the second hop, %d without", len(on), len(off))
	}
	for i := range on {
		if on[i].Iterations != off[i].Iterations || on[i].Score != off[i].Score {
			t.Errorf("five hits, hit %d: %v (score %v) with the second hop, %v (score %v) without", i, on[i].Iterations, on[i].Score, off[i].Iterations, off[i].Score)
		}
	}
}

// TestNearbyPrefersAStretchAboutTheQuestion: a lone turn that says "lemon
// cake" in passing matches the question's words best; three turns in a row
// about grandmother's recipe match one word each, but together all. With the
// nearby signal the stretch ranks first; without it, the lone turn.
func TestNearbyPrefersAStretchAboutTheQuestion(t *testing.T) {
	t.Parallel()
	lines := fillers(200)
	lines[19] = "Someone at the market near the old station mentioned a lemon cake in passing."
	lines[119] = "My grandmother kept her recipe in a notebook."
	lines[120] = "Hers took three lemons and a cup of sugar."
	lines[121] = "The cake came out of the oven golden."
	best := func(near int) int {
		eng, run := dialogue(t, lines, 4000, func(c *recall.Config) { c.Nearby = near })
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"What was in the lemon cake recipe?"}, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatalf("nearby %d: no hits", near)
		}
		return hits[0].Matched[0]
	}
	if got := best(-1); got != 20 {
		t.Fatalf("set-up: without the nearby signal the best hit is iteration %d, want the lone turn, 20", got)
	}
	if got := best(2); got < 120 || got > 122 {
		t.Errorf("with the nearby signal the best hit is iteration %d, want one of the stretch, 120-122", got)
	}
}

// TestAQuestionToMemoryStaysWholeInItsWindow: when the current step asks
// memory a question, Retrieved takes most of the window, and Working what
// is left; the question itself, a user message with no thought, shows
// whole there (window's TestFitWorkingKeepsTheNewestWhole tests Working
// at the edge of its budget). The hits the recall took to fill the room
// show in full: Static needs a few tokens of its share here, and
// Retrieved has that room too.
func TestAQuestionToMemoryStaysWholeInItsWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lines := fillers(300)
	for i := 10; i < 300; i += 2 {
		if i%4 == 0 {
			lines[i] = fmt.Sprintf("Turn %d: the lemon cake recipe came up once more, briefly, before we moved on.", i+1)
			continue
		}
		lines[i] = fmt.Sprintf("Turn %d: we talked about the lemon cake recipe again, and the weather, and the cake stall at the fair; "+
			"then about the bus timetable, the new library hours, the neighbour's dog, and whether the river path is open after the rain; "+
			"then about the school concert, the broken gate, the price of train tickets to the coast, the garden centre's opening hours, "+
			"the dentist's new address, and who is bringing what to the picnic on Sunday afternoon by the old boathouse; "+
			"and last about the long drive back from the coast, the rain on the motorway, the roadworks near the bridge, the late dinner, "+
			"the film we did not finish, the cat that got out twice, the plumber who never called back, and the plans for next weekend.", i+1)
	}
	eng, run := dialogue(t, lines, 4000, nil)
	const question = "What was in the lemon cake recipe we talked about?"
	raw, err := json.Marshal(journal.TextPayload{Content: question})
	if err != nil {
		t.Fatal(err)
	}
	ev := journal.Event{Seq: run.LastSeq + 1, Timestamp: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Type: journal.TypeUserMessage, Payload: raw}
	if _, err := eng.Journal.Append(ctx, run.ID, journal.FormatDelta, []journal.Event{ev}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if run, err = eng.Journal.Run(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{question}}); err != nil {
		t.Fatal(err)
	}
	cw, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !cw.Focused {
		t.Fatal("set-up: the window is not focused on the question")
	}
	asLines, full := 0, 0
	for _, how := range cw.Recalls {
		switch how {
		case window.ShownLines:
			asLines++
		case window.ShownFull:
			full++
		}
	}
	// The last hit may miss by the few tokens the fill's count of a
	// heading is off.
	if full < 20 || asLines > 1 {
		t.Errorf("%d recalls in full, %d as lines: want 20 or more in full and at most one as lines", full, asLines)
	}
	for _, p := range cw.Partitions {
		if p.Name != "working" {
			continue
		}
		for _, s := range p.Sections {
			if s.Source == fmt.Sprintf("iteration:%d", run.Iterations) && strings.Contains(s.Content, question) {
				return
			}
		}
		t.Fatalf("Working does not show the question whole: %+v", p.Sections)
	}
	t.Fatal("the window has no Working partition")
}

// TestFillPassesOverALongHitPastTheBest: a question's room goes to many
// hits. Past the best five, a hit that would take more than an eighth of
// the room (a long answer that names the question's words in passing) is
// passed over, and the short hits keep coming; without the bound, the
// long one would fit and stay.
func TestFillPassesOverALongHitPastTheBest(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	for i, at := range []int{40, 60, 80, 120, 140, 160} {
		lines[at] = fmt.Sprintf("My marathon time, attempt %d: four hours and some minutes.", i+1)
	}
	long := "I looked up marathon pacing in general. "
	for range 60 {
		long += "The river path, the bus timetable and the library hours came up too, at some length. "
	}
	lines[100] = long
	lines[250] = "Marathon again next spring."
	eng, run := dialogue(t, lines, 4000, nil)
	hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"What was my marathon time?"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hitFor(hits, 101); ok {
		t.Errorf("the long turn, past the best five, is a hit: %+v", hits)
	}
	if _, ok := hitFor(hits, 251); !ok {
		t.Errorf("the short turn ranked after the long one is not a hit: %+v", hits)
	}
}
