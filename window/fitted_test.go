package window

import (
	"strings"
	"testing"
)

// fittedOf is recallOf with a fitted form of about fitWords words.
func fittedOf(id, since, words, fitWords int) Recalled {
	r := recallOf(id, since, words)
	r.Fitted = strings.Repeat("ipsum ", fitWords)
	return r
}

// shownForm says which form of r the partition shows: "fitted", "whole",
// "lines", or "" when it does not show.
func shownForm(p Partition, r Recalled) string {
	for _, s := range p.Sections {
		if s.Source != r.Source {
			continue
		}
		switch s.Content {
		case r.Fitted:
			return "fitted"
		case r.Full:
			return "whole"
		case r.Lines:
			return "lines"
		}
	}
	return ""
}

// timelineCost is what a recall headed name, its text text, takes in the
// timeline.
func timelineCost(f *fitter, name, text string) int {
	s := Section{Name: name, Content: text, Tokens: f.count(text)}
	return f.sectionCost(Retrieved, &s) + timelineFraming
}

// shownAfter lays r out alone, made at step 10, in a room that stays room
// and a reach of reach, as the call after it sees it (the current step's
// slack, replay.slack, would hide how it arrived), and says which form
// shows, how the window reports it, and what it left out.
func shownAfter(f *fitter, r Recalled, reach, room int) (form, how string, omitted []string) {
	var p Partition
	shown := f.fitTimeline(&p, []Recalled{r}, fixedRoom(reach, room, 5), 10, 11, &omitted)
	return shownForm(p, r), shown[r.Source], omitted
}

// TestAFittedRecallShowsWhileTheRoomHoldsIt: a recall with a fitted form
// shows so when the step's room holds it, and in the form it has without
// when not: whole, for a fitted form with more of its output; its lines,
// for one whose whole form is past half the reach (its output cut further
// to fit). A fitted form past half the reach is not offered.
func TestAFittedRecallShowsWhileTheRoomHoldsIt(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	for _, tc := range []struct {
		r       Recalled
		without string
	}{{fittedOf(1, 10, 40, 120), "whole"}, {fittedOf(1, 10, 300, 80), "lines"}} {
		r := tc.r
		fitCost := timelineCost(f, r.Name, r.Fitted)
		reach := 2*fitCost + 2
		if past := timelineCost(f, r.Name, r.Full) > reach/2; past != (tc.without == "lines") {
			t.Fatalf("the test needs the whole form past half the reach exactly when it shows as lines without its fitted form")
		}
		for room, want := range map[int]string{f.headingCost(Working) + fitCost: "fitted", f.headingCost(Working) + fitCost - 1: tc.without} {
			wantHow := ShownFull
			if want == "lines" {
				wantHow = ShownLines
			}
			if got, how, omitted := shownAfter(f, r, reach, room); got != want || how != wantHow {
				t.Errorf("room %d: the recall shows %q (%s), want %q; omitted %v", room, got, how, want, omitted)
			}
		}
	}
	// A fitted form past half the reach is not offered: a recall whole
	// never takes more than that.
	r := fittedOf(1, 10, 40, 120)
	if got, _, _ := shownAfter(f, r, 2*timelineCost(f, r.Name, r.Fitted)-2, 1<<20); got != "whole" {
		t.Errorf("with half the reach under the fitted form, the recall shows %q, want whole", got)
	}
}

// TestAStepsRecallsNarrowBeforeOneLeaves: two recalls made at one step
// whose fitted forms do not fit the room together both show, the newer
// narrowed to whole; and a recall that showed before stays where it is
// when the step's fitted recall can narrow instead. Both are read at a
// call after the step.
func TestAStepsRecallsNarrowBeforeOneLeaves(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	a, b := fittedOf(1, 12, 40, 120), fittedOf(2, 12, 40, 120)
	cost := func(text, name string) int { return timelineCost(f, name, text) }
	room := f.headingCost(Working) + cost(a.Fitted, a.Name) + cost(b.Full, b.Name)
	reach := 4 * room
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, newestFirst(a, b), fixedRoom(reach, room, 5), 10, 13, &omitted)
	if ga, gb := shownForm(p, a), shownForm(p, b); ga != "fitted" || gb != "whole" {
		t.Errorf("the step's recalls show %q and %q, want fitted and whole (how %v, omitted %v)", ga, gb, how, omitted)
	}
	if f.cost(&p) > room {
		t.Errorf("the recalls take %d tokens, over their room of %d", f.cost(&p), room)
	}
	// A recall made at step 11 shows; the one made at 12 fits beside it
	// only whole, though fitted it would fit alone.
	old := recallOf(3, 11, 120)
	oldSec := Section{Name: old.Name, Content: old.Full, Tokens: f.count(old.Full)}
	c := fittedOf(4, 12, 40, 120)
	room = f.headingCost(Working) + f.sectionCost(Retrieved, &oldSec) + timelineFraming + cost(c.Full, c.Name)
	p, omitted = Partition{}, nil
	how = f.fitTimeline(&p, newestFirst(old, c), fixedRoom(4*room, room, 5), 10, 13, &omitted)
	if g, gc := shownForm(p, old), shownForm(p, c); g != "whole" || gc != "whole" {
		t.Errorf("shown %q and %q, want the earlier recall kept and the step's whole (how %v, omitted %v)", g, gc, how, omitted)
	}
}

// TestWideningNeverNarrows: a recall shown fitted keeps that form when
// the spare does not hold its wider one: its whole form, narrower, is no
// widening.
func TestWideningNeverNarrows(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	r := fittedOf(1, 10, 40, 120)
	r.Wider = strings.Repeat("dolor ", 2000)
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, []Recalled{r}, fixedRoom(1<<20, 1<<20, 5), 10, 10, &omitted)
	if got := shownForm(p, r); got != "fitted" {
		t.Fatalf("the recall shows %q before widening, want fitted", got)
	}
	f.widen(&p, []Recalled{r}, how, 100)
	if got := shownForm(p, r); got != "fitted" {
		t.Errorf("after widening, the recall shows %q, want fitted", got)
	}
}

// TestAFittedRecallPastHalfTheReachKeepsItsPlace: a recall whose whole
// form is past half the reach shows fitted beside the step's other recall,
// in a room that holds it and the other's lines: it is not narrowed to its
// own lines, which would lose its calls.
func TestAFittedRecallPastHalfTheReachKeepsItsPlace(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	r := fittedOf(1, 10, 300, 80)
	fitCost := timelineCost(f, r.Name, r.Fitted)
	reach := 2*fitCost + 2
	// With a second recall of the same step, made after it, in a room that
	// holds the fitted form and the other's lines: the fitted one stays.
	b := recallOf(2, 10, 60)
	room := f.headingCost(Working) + fitCost + timelineCost(f, b.Name, b.Lines)
	var p Partition
	var omitted []string
	how := f.fitTimeline(&p, newestFirst(r, b), fixedRoom(reach, room, 5), 10, 10, &omitted)
	if got := shownForm(p, r); got != "fitted" {
		t.Errorf("the fitted recall shows %q beside the step's other, want fitted (how %v, omitted %v)", got, how, omitted)
	}
}
