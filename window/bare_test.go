package window

import (
	"strings"
	"testing"
)

// TestABareRecallGoesWithoutItsHeadingOnlyWhenItsTextNamesIt: a recall
// marked Bare, after the first, shows no "### …" heading when the form it
// shows in starts by naming its iterations ("[iter 7] …", "#### Iteration
// 7 (ok)"), and is charged that much less (never less than its Markdown
// counts); in a form that does not (a lone iteration's rendering, its own
// heading cut), it keeps the heading, so that every recall in the
// partition says which iterations it holds.
func TestABareRecallGoesWithoutItsHeadingOnlyWhenItsTextNamesIt(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	for _, c := range []struct {
		full    string
		bare    bool
		heading bool
	}{
		{"[iter 7] thought: the lamp was checked at dusk.", true, false},
		{"#### Iteration 7 (ok)\nThought: the lamp was checked.\n\n#### Iteration 8 (ok)\nThought: logged.", true, false},
		{"Thought: the lamp was checked at dusk.", true, true},
		{"[iter 7] thought: the lamp was checked at dusk.", false, true},
	} {
		first := Recalled{Name: "Iteration 2 (recalled for \"lamp\")", Source: "recall:1", Full: "[iter 2] thought: the lamp.", Covers: [2]int{2, 2}}
		r := Recalled{Name: "Iteration 7", Source: "recall:2", Full: c.full, Lines: "[iter 7] the lamp was checked", Bare: c.bare, Covers: [2]int{7, 7}}
		p := Partition{Name: Retrieved, Budget: 1000}
		var omitted []string
		if shown := f.fitRetrieved(&p, []Recalled{first, r}, &omitted); shown["recall:2"] != ShownFull {
			t.Fatalf("%q: shown %q, want in full", c.full, shown["recall:2"])
		}
		md := partitionText(p)
		if got := strings.Contains(md, "### Iteration 7\n"); got != c.heading {
			t.Errorf("bare %v, text %q: heading shown %v, want %v:\n%s", c.bare, c.full, got, c.heading, md)
		}
		if got, want := f.cost(&p), f.count(md+"\n\n"); got < want || got > want+2*len(p.Sections) {
			t.Errorf("bare %v, text %q: the partition is charged %d tokens, its Markdown counts %d", c.bare, c.full, got, want)
		}
	}
}

// TestTheFirstShownRecallKeepsItsHeading: when the first hit of a question
// (whose heading names the question) fits in neither form, the bare hit
// after it opens the partition with its heading, so that the partition
// does not begin with lines nothing introduces.
func TestTheFirstShownRecallKeepsItsHeading(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	long := strings.Repeat("the lamp was checked at dusk and logged ", 100)
	recalls := []Recalled{
		{Name: "Iteration 3 (recalled for \"lamp\")", Source: "recall:1", Full: "[iter 3] thought: " + long, Lines: "[iter 3] " + long, Covers: [2]int{3, 3}},
		{Name: "Iteration 8", Source: "recall:2", Full: "[iter 8] thought: the lamp again.", Lines: "[iter 8] the lamp", Bare: true, Covers: [2]int{8, 8}},
		{Name: "Iteration 12", Source: "recall:3", Full: "[iter 12] thought: and the lamp once more.", Lines: "[iter 12] the lamp", Bare: true, Covers: [2]int{12, 12}},
	}
	p := Partition{Name: Retrieved, Budget: 200}
	var omitted []string
	shown := f.fitRetrieved(&p, recalls, &omitted)
	if shown["recall:1"] != ShownOmitted || shown["recall:2"] != ShownFull || shown["recall:3"] != ShownFull {
		t.Fatalf("set-up: shown %v, want the first left out and the others in full", shown)
	}
	md := partitionText(p)
	if !strings.HasPrefix(md, "## Retrieved memory\n\n### Iteration 8\n[iter 8]") || strings.Contains(md, "### Iteration 12") {
		t.Errorf("the first recall shown should keep its heading, the next go without:\n%s", md)
	}
	if got, want := f.cost(&p), f.count(md+"\n\n"); got < want || got > want+2*len(p.Sections) {
		t.Errorf("the partition is charged %d tokens, its Markdown counts %d", got, want)
	}
}
