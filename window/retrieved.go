package window

import (
	"fmt"
	"strings"
)

// fitRetrieved fills the Retrieved partition from the recalls, most wanted
// first: each in full while that fits, else as its one-line-per-iteration
// form, else it is named in a last "not shown" section, so nothing leaves
// without a trace. It returns how each recall showed.
func (f *fitter) fitRetrieved(p *Partition, recalls []Recalled, omitted *[]string) map[string]string {
	if len(recalls) == 0 {
		return nil
	}
	shown := make(map[string]string, len(recalls))
	var left []Recalled
	for _, r := range recalls {
		placed := false
		for _, form := range f.forms(r) {
			// The partition's first section keeps its heading, which
			// names the question, even when the recall it was offered
			// after did not fit.
			form.sec.Bare = form.sec.Bare && len(p.Sections) > 0
			p.Sections = append(p.Sections, form.sec)
			if f.cost(p) <= p.Budget {
				shown[r.Source] = form.how
				placed = true
				break
			}
			p.Sections = p.Sections[:len(p.Sections)-1]
		}
		if !placed {
			left = append(left, r)
		}
	}
	// Name what did not fit; if even that line does not fit, give up the
	// least wanted shown recall to it, and name that one too.
	for len(left) > 0 {
		p.Sections = append(p.Sections, Section{Name: "Also recalled, not shown", Source: "recall:omitted", Content: traceText(left)})
		last := &p.Sections[len(p.Sections)-1]
		last.Tokens = f.count(last.Content)
		if f.cost(p) <= p.Budget {
			break
		}
		if len(p.Sections) == 1 {
			f.setText(last, clipTokens(f, last.Content, last.Tokens-(f.cost(p)-p.Budget)-4, "…"))
			if f.cost(p) > p.Budget {
				p.Sections = nil
			}
			break
		}
		p.Sections = p.Sections[:len(p.Sections)-1]
		drop := p.Sections[len(p.Sections)-1]
		p.Sections = p.Sections[:len(p.Sections)-1]
		for _, r := range recalls {
			if r.Source == drop.Source {
				left = append([]Recalled{r}, left...)
			}
		}
	}
	for _, r := range left {
		shown[r.Source] = ShownOmitted
		*omitted = append(*omitted, r.Source+" not shown (Retrieved share full)")
	}
	return shown
}

// form is one way a recall can show: its section, and how (ShownFull or
// ShownLines).
type form struct {
	sec Section
	how string
}

// forms lists the ways r can show, the fuller first: whole, then one line
// per iteration, each counted.
func (f *fitter) forms(r Recalled) []form {
	var out []form
	for _, c := range []struct {
		text, how string
		tokens    int
	}{{r.Full, ShownFull, r.FullTokens}, {r.Lines, ShownLines, r.LinesTokens}} {
		if c.text == "" {
			continue
		}
		if c.tokens <= 0 {
			c.tokens = f.count(c.text)
		}
		out = append(out, form{Section{Name: r.Name, Source: r.Source, Content: c.text, Tokens: c.tokens, Bare: r.Bare && SelfNamed(c.text)}, c.how})
	}
	return out
}

// spillRetrieved gives recalls that did not show in full the budget the
// other partitions left unused (spare): once Working has taken what it
// can use, nothing else would fill it, and the Retrieved partition comes
// after Working, so the window's prefix is unchanged. It refits the
// partition with its share plus spare and returns how each recall showed.
func (f *fitter) spillRetrieved(p *Partition, recalls []Recalled, shown map[string]string, omitted *[]string, spare int) map[string]string {
	if spare <= 0 || len(recalls) == 0 {
		return shown
	}
	wanting := false
	for _, r := range recalls {
		if shown[r.Source] != ShownFull {
			wanting = true
			break
		}
	}
	if !wanting {
		return shown
	}
	wider := Partition{Name: p.Name, Budget: f.cost(p) + spare}
	var wOmitted []string
	got := f.fitRetrieved(&wider, recalls, &wOmitted)
	wider.Budget = max(p.Budget, wider.Budget)
	*p, *omitted = wider, wOmitted
	return got
}

// traceText names recalls that did not fit, one per line.
func traceText(rs []Recalled) string {
	lines := make([]string, 0, len(rs)+1)
	for _, r := range rs {
		lines = append(lines, "- "+r.Name)
	}
	lines = append(lines, fmt.Sprintf("(%d left out for space; `delta memory show --json` lists every recall)", len(rs)))
	return strings.Join(lines, "\n")
}
