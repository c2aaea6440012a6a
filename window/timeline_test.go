package window

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/scoring"
)

func timelineFitter(t *testing.T) *fitter {
	t.Helper()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	return &fitter{tok: tok, memo: newMemo()}
}

// recallOf is a recall made at step since, of about words words in full.
func recallOf(id, since, words int) Recalled {
	return Recalled{Name: fmt.Sprintf("Iteration %d (recalled: you named x%d)", id, id), Source: fmt.Sprintf("recall:%d", id),
		Full: strings.Repeat("lorem ", words), Lines: fmt.Sprintf("[iter %d] read x%d", id, id), Since: since, Covers: [2]int{id, id}}
}

// newestFirst lists recalls most recently made first, as Engine.recalled
// offers them.
func newestFirst(rs ...Recalled) []Recalled {
	out := make([]Recalled, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r
	}
	return out
}

// fixedRoom is a room that stays the same at every step.
func fixedRoom(reach, room, native int) *timelineRoom {
	return &timelineRoom{reach: reach, share: room, base: room, native: native, now: 1 << 30}
}

func assistantMessages(text string) []fold.Message {
	return []fold.Message{{Role: "assistant", Content: fold.StrPtr(text)}}
}

func shownSources(p Partition) string {
	var out []string
	for _, s := range p.Sections {
		if s.Source != "recall:omitted" {
			out = append(out, fmt.Sprintf("%s@%d", s.Source, s.at))
		}
	}
	return strings.Join(out, " ")
}

// TestTimelineKeepsWhatShowedBefore replays four steps' recalls in a room
// that holds three: at each step the step's recall shows, the recalls
// that showed before keep their places, and when the room is full the one
// appended last before the step leaves, not the oldest.
func TestTimelineKeepsWhatShowedBefore(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	one := recallOf(1, 10, 60)
	sec, _, _ := f.timelineForm(one, 1<<20)
	room := f.headingCost(Working) + 3*(f.sectionCost(Retrieved, &sec)+timelineFraming) + 40
	steps := []Recalled{recallOf(1, 10, 60), recallOf(2, 11, 60), recallOf(3, 12, 60), recallOf(4, 13, 60)}
	want := []string{
		"recall:1@5",
		"recall:1@5 recall:2@6",
		"recall:1@5 recall:2@6 recall:3@7",
		"recall:1@5 recall:2@6 recall:4@8", // 3, appended last, leaves
	}
	for i := range steps {
		var p Partition
		var omitted []string
		how := f.fitTimeline(&p, newestFirst(steps[:i+1]...), fixedRoom(4*room, room, 5), 10, 10+i, &omitted)
		if got := shownSources(p); got != want[i] {
			t.Fatalf("step %d: shown %q, want %q (omitted %v)", i+1, got, want[i], omitted)
		}
		if i == 3 {
			if how["recall:3"] != ShownOmitted || !strings.Contains(strings.Join(omitted, ";"), "recall:3 not shown (later recalls needed its room)") {
				t.Fatalf("recall:3 should be reported left out: %v %v", how, omitted)
			}
			if last := p.Sections[len(p.Sections)-1]; last.Source != "recall:omitted" || !strings.Contains(last.Content, "Iteration 3 (recalled") {
				t.Fatalf("the timeline should end with a trace naming recall 3, got %q", last.Content)
			}
		}
	}
}

// threeRecallsRoom is a room that holds three recalls of recallOf's 60
// words, and half of it one.
func threeRecallsRoom(f *fitter) int {
	sec, _, _ := f.timelineForm(recallOf(1, 10, 60), 1<<20)
	return f.headingCost(Working) + 3*(f.sectionCost(Retrieved, &sec)+timelineFraming) + 40
}

// TestTimelineLaysOutAgainAtAReset: recalls made before the last fold (or
// fade) are carried newest first within half the room, and a recall made
// since is appended; an expired recall left out is not named in the trace.
func TestTimelineLaysOutAgainAtAReset(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	room := threeRecallsRoom(f)
	old := []Recalled{recallOf(1, 10, 60), recallOf(2, 11, 60), recallOf(3, 12, 60)}
	for i := range old {
		old[i].Carried = true
	}
	old[0].Lingering = true
	var p Partition
	var omitted []string
	f.fitTimeline(&p, newestFirst(append(old, recallOf(4, 20, 60))...), fixedRoom(4*room, room, 5), 15, 20, &omitted)
	// Half the room holds one carried recall (the newest, 3), then 4.
	if got, want := shownSources(p), "recall:3@7 recall:4@15"; !strings.HasPrefix(got, want) {
		t.Fatalf("shown %q, want %q first", got, want)
	}
	trace := p.Sections[len(p.Sections)-1]
	if trace.Source != "recall:omitted" || !strings.Contains(trace.Content, "Iteration 2 (") || strings.Contains(trace.Content, "Iteration 1 (") {
		t.Fatalf("the trace should name recall 2, left out while active, and not the expired recall 1:\n%s", trace.Content)
	}
	if f.cost(&p) > room {
		t.Fatalf("the recalls take %d tokens, over their room of %d", f.cost(&p), room)
	}
}

// TestTimelineFormDoesNotDependOnTheOthers: a recall shows whole while
// that takes at most half the reach, else as lines, whatever else shows.
func TestTimelineFormDoesNotDependOnTheOthers(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	big, small := recallOf(1, 10, 400), recallOf(2, 11, 20)
	for _, rs := range [][]Recalled{{big}, {big, small}} {
		var p Partition
		var omitted []string
		how := f.fitTimeline(&p, newestFirst(rs...), fixedRoom(600, 600, 0), 10, 11, &omitted)
		if how["recall:1"] != ShownLines {
			t.Fatalf("a recall of about 400 tokens in a reach of 600 should show as lines, got %q", how["recall:1"])
		}
		if len(rs) == 2 && how["recall:2"] != ShownFull {
			t.Fatalf("a short recall should show whole, got %q", how["recall:2"])
		}
	}
}

// TestTimelineInterleavesWithWorking: each recall is written after the
// Working iteration it was made after, in both forms, under Working's
// heading; the messages keep every iteration's calls and results together.
func TestTimelineInterleavesWithWorking(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	working, _ := workingOf(f, 5, 5, 5)
	for i := range working.Sections {
		working.Sections[i].at = i + 1
		working.Sections[i].Messages = assistantMessages(fmt.Sprintf("step %d", i+1))
	}
	var retrieved Partition
	var omitted []string
	f.fitTimeline(&retrieved, newestFirst(recallOf(7, 6, 10), recallOf(8, 8, 10)), fixedRoom(1000, 1000, 5), 6, 8, &omitted)
	retrieved.Name = Retrieved
	parts := []Partition{working, retrieved}
	md, spans := renderMarkdown(parts, true)
	if strings.Count("\n"+md, "\n## ") != 1 || !strings.HasPrefix(md, "## Working memory\n") {
		t.Fatalf("the timeline should be one partition under Working's heading:\n%s", md)
	}
	order := []string{"#### Iteration 1 (", "### Iteration 7 (", "#### Iteration 2 (", "#### Iteration 3 (", "### Iteration 8 ("}
	inOrder(t, md, order)
	if len(spans) != 5 || spans[1].partition != Retrieved || spans[2].partition != Working {
		t.Fatalf("spans should follow the timeline: %+v", spans)
	}
	msgs := renderMessages(parts, true)
	if got := rolesOf(msgs); got != "assistant user assistant assistant user" {
		t.Fatalf("messages: %s", got)
	}
}

// TestTimelineNarrowsAsWorkingGrows: between folds Working's iterations
// come one a step and the recalls' room narrows; call after call, a recall
// that left does not come back and the others keep their places: each
// call's recalls are the previous call's, less some, plus its own.
func TestTimelineNarrowsAsWorkingGrows(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	working, _ := workingOf(f, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40)
	for i := range working.Sections {
		working.Sections[i].at = i + 1
	}
	var recalls []Recalled
	for s := 3; s <= 12; s++ {
		recalls = append(recalls, recallOf(s, s, 50))
	}
	const native = 0
	one := f.count(strings.Repeat("lorem ", 50))
	base := f.cost(&working) + 4*one // room for about four recalls before Working grows
	prev := map[string]bool{}
	narrowed := false
	for now := 3; now <= 12; now++ {
		w := Partition{Name: Working, Sections: working.Sections[:now]}
		room := f.newTimelineRoom(w, nil, nil, nil, 1<<20, one, base, native, now, 0)
		var p Partition
		var omitted []string
		offered := newestFirst(recalls[:now-2]...)
		f.fitTimeline(&p, offered, room, 1, now, &omitted)
		shown := map[string]bool{}
		for _, s := range p.Sections {
			if s.Source != "recall:omitted" {
				shown[s.Source] = true
			}
		}
		own := fmt.Sprintf("recall:%d", now)
		if !shown[own] {
			t.Fatalf("at %d the step's own recall does not show: %v", now, omitted)
		}
		for src := range shown {
			if src != own && !prev[src] {
				t.Fatalf("at %d %s came back after it left (shown before: %v)", now, src, prev)
			}
		}
		if len(shown) < len(prev)+1 {
			narrowed = true
		}
		if f.cost(&p) > room.at(now) {
			t.Fatalf("at %d the recalls take %d, over their room of %d", now, f.cost(&p), room.at(now))
		}
		prev = shown
	}
	if !narrowed {
		t.Fatal("the room never narrowed: the test does not test it")
	}
}

// TestWidenTakesOnlyTheSpare lays out recalls with wider forms: the
// newest made widens while what the window leaves holds it, the one after
// it does not fit what is left and keeps its form, and a recall made
// before the window was last laid out never widens, since its place is in
// the prefix a cache holds.
func TestWidenTakesOnlyTheSpare(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	wide := func(r Recalled, carried bool) Recalled {
		r.Wider, r.Carried = r.Full+strings.Repeat("ipsum ", 80), carried
		return r
	}
	old, mid, newest := wide(recallOf(1, 8, 30), true), wide(recallOf(2, 11, 30), false), wide(recallOf(3, 12, 30), false)
	recalls := newestFirst(old, mid, newest)
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, recalls, fixedRoom(4000, 1000, 5), 10, 12, &omitted)
	before := f.cost(&p)
	grow := f.count(newest.Wider) - f.count(newest.Full)
	f.widen(&p, recalls, how, grow+grow/2)
	content := map[string]string{}
	for _, s := range p.Sections {
		content[s.Source] = s.Content
	}
	if content["recall:3"] != newest.Wider {
		t.Errorf("the newest recall did not widen, with room for it")
	}
	if content["recall:2"] != mid.Full || content["recall:1"] != old.Full {
		t.Errorf("a recall widened past the spare, or one carried widened")
	}
	if got := f.cost(&p) - before; got > grow+grow/2 || p.Budget < f.cost(&p) {
		t.Errorf("widening took %d tokens of a spare of %d; partition budget %d, cost %d", got, grow+grow/2, p.Budget, f.cost(&p))
	}
	q := Partition{}
	how = f.fitTimeline(&q, recalls, fixedRoom(4000, 1000, 5), 10, 12, &omitted)
	f.widen(&q, recalls, how, grow-1)
	for _, s := range q.Sections {
		if strings.Contains(s.Content, "ipsum") {
			t.Errorf("%s widened in a spare too small for it", s.Source)
		}
	}
}

// TestWidenShowsWholeWhatShowedAsLines: a recall the timeline's room showed
// as lines shows whole when the spare holds it, and says so; with a spare
// one token short it keeps its lines.
func TestWidenShowsWholeWhatShowedAsLines(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	recent := recallOf(2, 11, 120)
	recalls := []Recalled{recent}
	lines, _, _ := f.timelineForm(recent, 40)
	room := f.headingCost(Working) + f.sectionCost(Retrieved, &lines) + timelineFraming + 4
	lay := func() (Partition, map[string]string, int) {
		var p Partition
		var omitted []string
		how := f.fitTimeline(&p, recalls, fixedRoom(4000, room, 5), 10, 12, &omitted)
		if how["recall:2"] != ShownLines {
			t.Fatalf("the test needs the recall shown as lines, got %v", how)
		}
		whole := p
		whole.Sections = slices.Clone(p.Sections)
		whole.Sections[0].Content, whole.Sections[0].Tokens = recent.Full, f.count(recent.Full)
		return p, how, f.cost(&whole) - f.cost(&p)
	}
	p, how, need := lay()
	f.widen(&p, recalls, how, need)
	if p.Sections[0].Content != recent.Full || how["recall:2"] != ShownFull {
		t.Errorf("the recall did not show whole with the room for it: %q (%s)", p.Sections[0].Content, how["recall:2"])
	}
	p, how, need = lay()
	f.widen(&p, recalls, how, need-1)
	if p.Sections[0].Content != recent.Lines || how["recall:2"] != ShownLines {
		t.Errorf("the recall changed form in a spare too small for it: %q (%s)", p.Sections[0].Content, how["recall:2"])
	}
}

// rolesOf lists the messages' roles, space-separated.
func rolesOf(msgs []fold.Message) string {
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	return strings.Join(roles, " ")
}

// inOrder fails t unless md holds each of order, in that order.
func inOrder(t *testing.T, md string, order []string) {
	t.Helper()
	at := 0
	for _, h := range order {
		i := strings.Index(md[at:], h)
		if i < 0 {
			t.Fatalf("%q is not where it belongs in:\n%s", h, md)
		}
		at += i
	}
}

// TestSlackGoesToTheStepsBetterRecall: two recalls made at the current
// step, the first made (its triggers' better) too long to show whole in
// the steady room, the second whole beside its lines. The slack Dynamic
// leaves at this call holds the first whole beside the second's lines but
// not beside its whole form: the first shows whole and the second as
// lines, not the reverse.
func TestSlackGoesToTheStepsBetterRecall(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	a, b := recallOf(1, 10, 200), recallOf(2, 10, 60)
	cost := func(name, text string) int {
		s := Section{Name: name, Content: text, Tokens: f.count(text)}
		return f.sectionCost(Retrieved, &s) + timelineFraming
	}
	heading := f.headingCost(Working)
	steady := heading + cost(a.Name, a.Lines) + cost(b.Name, b.Full)
	atNow := heading + cost(a.Name, a.Full) + cost(b.Name, b.Lines)
	if heading+cost(a.Name, a.Full) <= steady || atNow >= heading+cost(a.Name, a.Full)+cost(b.Name, b.Full) || atNow <= steady {
		t.Fatalf("the test needs the first recall whole past the steady room, and the room at this call to hold it whole beside the second's lines only")
	}
	room := &timelineRoom{reach: 4 * atNow, share: steady, base: steady, native: 5, now: 10, slack: atNow - steady}
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, newestFirst(a, b), room, 0, 10, &omitted)
	if ga, gb := shownForm(p, a), shownForm(p, b); ga != "whole" || gb != "lines" {
		t.Errorf("the step's recalls show %q and %q, want whole and lines (how %v, omitted %v)", ga, gb, how, omitted)
	}
	if how[a.Source] != ShownFull || how[b.Source] != ShownLines {
		t.Errorf("the window reports %v, want the first full and the second as lines", how)
	}
	if f.cost(&p) > atNow {
		t.Errorf("the recalls take %d tokens, over the room of %d at this call", f.cost(&p), atNow)
	}
	// At the next call the step has no slack: the first shows as lines
	// and the second whole, as the steady room holds them.
	room.now = 11
	p, omitted = Partition{}, nil
	f.fitTimeline(&p, newestFirst(a, b), room, 0, 11, &omitted)
	if ga, gb := shownForm(p, a), shownForm(p, b); ga != "lines" || gb != "whole" {
		t.Errorf("at the next call the recalls show %q and %q, want lines and whole", ga, gb)
	}
}

// TestARecallMadeAnewComesBackAtItsStep: a step that acts again on what
// an earlier recall holds makes a recall of the same iterations anew,
// held by the earlier one (Recalled.HeldBy). While the earlier one does
// not show (carried, crowded out), the new one shows at its own step;
// while it shows, the new ones show through it, a chain of them
// included, and the iterations show once.
func TestARecallMadeAnewComesBackAtItsStep(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	room := threeRecallsRoom(f)
	anew := func(id, since int, holder string) Recalled {
		r := recallOf(1, since, 60)
		r.Source, r.HeldBy = fmt.Sprintf("recall:%d", id), holder
		return r
	}

	// Half the room carries one recall, the newest (3): 1 does not show,
	// and the step at 20 that acts on it again gets it back there.
	old := []Recalled{recallOf(1, 10, 60), recallOf(2, 11, 60), recallOf(3, 12, 60)}
	for i := range old {
		old[i].Carried = true
	}
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, newestFirst(append(old, anew(5, 20, "recall:1"))...), fixedRoom(4*room, room, 5), 15, 20, &omitted)
	if got, want := shownSources(p), "recall:3@7 recall:5@15"; got != want {
		t.Fatalf("shown %q, want %q (omitted %v)", got, want, omitted)
	}
	if how["recall:1"] != how["recall:5"] || !strings.Contains(strings.Join(omitted, ";"), "recall:1 shown as recall:5") {
		t.Errorf("recall:1 should be reported shown as recall:5: %v %v", how, omitted)
	}

	// Carried and shown, the first holds the iterations for the recalls
	// made anew at 20 and 21, each held by the one before.
	first := recallOf(1, 10, 60)
	first.Carried = true
	p, omitted = Partition{}, nil
	how = f.fitTimeline(&p, newestFirst(first, anew(5, 20, "recall:1"), anew(6, 21, "recall:5")), fixedRoom(4*room, room, 5), 15, 21, &omitted)
	if got, want := shownSources(p), "recall:1@5"; got != want {
		t.Fatalf("shown %q, want %q: the recalls made anew show through the first (omitted %v)", got, want, omitted)
	}
	for _, s := range []string{"recall:5", "recall:6"} {
		if how[s] != how["recall:1"] {
			t.Errorf("%s reported %q, want %q as recall:1 shows", s, how[s], how["recall:1"])
		}
	}
}

// TestTheTraceNamesIterationsOnce: two recalls of one iteration, the
// second made anew, neither shown (too long for the room): the trace of
// recalls left out names the iteration once, by the newer.
func TestTheTraceNamesIterationsOnce(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	first, again := recallOf(1, 10, 2000), recallOf(1, 20, 2000)
	first.Lines, again.Lines = "", ""
	again.Name, again.Source, again.HeldBy = "Iteration 1 (recalled: you named y1)", "recall:5", "recall:1"
	var p Partition
	var omitted []string
	f.fitTimeline(&p, newestFirst(first, again), fixedRoom(600, 300, 5), 15, 20, &omitted)
	if len(p.Sections) != 1 || p.Sections[0].Source != "recall:omitted" {
		t.Fatalf("want only the trace, got %q (omitted %v)", shownSources(p), omitted)
	}
	trace := p.Sections[0].Content
	if strings.Count(trace, "Iteration 1 (") != 1 || !strings.Contains(trace, "you named y1") {
		t.Errorf("the trace should name iteration 1 once, by the newer recall:\n%s", trace)
	}
	if len(omitted) != 2 {
		t.Errorf("the window's omissions should list both recalls: %v", omitted)
	}
}
