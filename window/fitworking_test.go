package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/scoring"
)

// workingOf builds a Working partition of iterations whose full text has
// the given number of words, and their notes.
func workingOf(f *fitter, words ...int) (Partition, []*fold.Note) {
	p := Partition{Name: Working}
	var notes []*fold.Note
	for i, w := range words {
		n := i + 1
		full := fmt.Sprintf("#### Iteration %d (ok)\nThought: %s", n, strings.Repeat("lorem ", w))
		line := fmt.Sprintf("[iter %d] thought: lorem", n)
		notes = append(notes, &fold.Note{Number: n, L0: full, L1: line})
		p.Sections = append(p.Sections, Section{Name: fmt.Sprintf("iteration %d", n), Source: fmt.Sprintf("iteration:%d", n), Content: full, Tokens: f.count(full)})
	}
	return p, notes
}

// TestFitWorkingKeepsTheNewestWhole: older iterations become lines, then
// leave, before the newest, the step the agent is on, loses anything; a
// newest too long to show whole even alone becomes a line first, and the
// older ones keep the room it leaves.
func TestFitWorkingKeepsTheNewestWhole(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	f := &fitter{tok: tok, memo: newMemo()}
	sources := func(p Partition) (out []string) {
		for _, s := range p.Sections {
			how := "whole"
			if strings.HasPrefix(s.Content, "[iter") {
				how = "line"
			}
			out = append(out, s.Source+" "+how)
		}
		return out
	}

	// The newest fits alone, not with the others: it stays whole.
	p, notes := workingOf(f, 40, 40, 40, 60)
	p.Budget = f.cost(&Partition{Name: Working, Sections: p.Sections[3:]}) + 12
	var omitted []string
	f.fitWorking(&p, notes, &omitted)
	got := sources(p)
	if len(got) == 0 || got[len(got)-1] != "iteration:4 whole" || f.cost(&p) > p.Budget {
		t.Errorf("newest fits alone: got %v (cost %d of %d), want iteration 4 whole, last", got, f.cost(&p), p.Budget)
	}

	// The newest does not fit alone: it is a line, and the three short
	// ones before it keep their place as lines.
	p, notes = workingOf(f, 5, 5, 5, 900)
	p.Budget = 120
	omitted = nil
	f.fitWorking(&p, notes, &omitted)
	got = sources(p)
	want := []string{"iteration:1 whole", "iteration:2 whole", "iteration:3 whole", "iteration:4 line"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") || f.cost(&p) > p.Budget {
		t.Errorf("newest too long alone: got %v (cost %d of %d), want %v", got, f.cost(&p), p.Budget, want)
	}
}
