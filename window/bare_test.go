package window

import (
	"strings"
	"testing"
)

// TestABareRecallGoesWithoutItsHeadingOnlyWhenItsTextNamesIt: a recall
// marked Bare shows no "### …" heading when the form it shows in starts by
// naming its iterations ("[iter 7] …", "#### Iteration 7 (ok)"), and costs
// that much less; in a form that does not (a lone iteration's rendering,
// its own heading cut), it keeps the heading, so that every recall in the
// partition says which iterations it holds.
func TestABareRecallGoesWithoutItsHeadingOnlyWhenItsTextNamesIt(t *testing.T) {
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
		r := Recalled{Name: "Iteration 7", Source: "recall:1", Full: c.full, Lines: "[iter 7] the lamp was checked", Bare: c.bare, Covers: [2]int{7, 7}}
		p := Partition{Name: Retrieved, Budget: 1000}
		var omitted []string
		if shown := f.fitRetrieved(&p, []Recalled{r}, &omitted); shown["recall:1"] != ShownFull {
			t.Fatalf("%q: shown %q, want in full", c.full, shown["recall:1"])
		}
		md := partitionText(p)
		if got := strings.Contains(md, "### Iteration 7\n"); got != c.heading {
			t.Errorf("bare %v, text %q: heading shown %v, want %v:\n%s", c.bare, c.full, got, c.heading, md)
		}
		if want := f.count(md + "\n\n"); f.cost(&p) < want-2 || f.cost(&p) > want+2 {
			t.Errorf("bare %v, text %q: the partition costs %d, its Markdown counts %d", c.bare, c.full, f.cost(&p), want)
		}
	}
}
