package window

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/scoring"
)

// messageFraming is what the messages form adds around the non-Working
// partitions: up to four messages of a few tokens each.
const messageFraming = 4 * 4

// fitter measures and trims partitions. Token counts of stored parts come
// from the database; only headings and trimmed text are counted here.
type fitter struct {
	tok  scoring.Tokenizer
	memo *memo
}

type memo struct{ m map[string]int }

func newMemo() *memo { return &memo{m: map[string]int{}} }

func (f *fitter) count(s string) int {
	if v, ok := f.memo.m[s]; ok {
		return v
	}
	v := f.tok.Count(s)
	f.memo.m[s] = v
	return v
}

// headingCost is the partition heading's tokens plus its blank line.
func (f *fitter) headingCost(name string) int { return f.count(partitionHeading(name)) + 1 }

// sectionCost is a section's tokens plus its own heading and the blank line
// that separates it from the next.
func (f *fitter) sectionCost(p string, s *Section) int {
	n := s.Tokens + 1
	if h := sectionHeading(p, s); h != "" {
		n += f.count(h)
	}
	return n
}

// cost is what a partition takes in the Markdown form.
func (f *fitter) cost(p *Partition) int {
	if len(p.Sections) == 0 {
		return 0
	}
	heading := p.Name
	if p.under != "" {
		heading = p.under
	}
	n, headed := 0, false
	for i := range p.Sections {
		n += f.sectionCost(p.Name, &p.Sections[i])
		if p.Name == ShortTerm && p.Sections[i].at > 0 {
			// A block in the timeline is a chat message of its own, under
			// Working's heading, which Working counts.
			n += timelineFraming
		} else {
			headed = true
		}
		if p.Name == Working {
			// Working iterations render as native messages in the other form;
			// budget for the larger of the two.
			n += max(0, p.Sections[i].MessageTokens-p.Sections[i].Tokens)
		}
	}
	if p.Name == Working {
		n += messageFraming
	}
	if headed {
		n += f.headingCost(heading)
	}
	return n + len(p.Sections)*p.perSection
}

// newestCost is what Working needs to show its newest iteration alone:
// its cost, and the heading Build holds back from Working's budget.
func (f *fitter) newestCost(p Partition) int {
	if len(p.Sections) == 0 {
		return 0
	}
	p.Sections = p.Sections[len(p.Sections)-1:]
	return f.cost(&p) + f.headingCost(Working)
}

// setText replaces a section's content and recounts it.
func (f *fitter) setText(s *Section, text string) {
	s.Content = text
	s.Tokens = f.count(text)
}

// staticNeed counts the Static sections and returns what the partition
// takes uncut.
func (f *fitter) staticNeed(p *Partition) int {
	for i := range p.Sections {
		p.Sections[i].Tokens = f.count(p.Sections[i].Content)
	}
	return f.cost(p)
}

// fitStatic cuts the system prompt, then the task, to the Static budget,
// which is already as large as the static cap allows (staticNeed counted
// the sections). What was cut is named with its size, so that a reader
// knows how much is missing.
func (f *fitter) fitStatic(p *Partition) {
	for i := 0; i < len(p.Sections) && f.cost(p) > p.Budget; i++ {
		s := &p.Sections[i]
		keep := s.Tokens - (f.cost(p) - p.Budget) - 8
		// The note's count goes in after the cut; it has no more digits
		// than the placeholder's, so the text still fits.
		placeholder := staticCutNote(s.Name, s.Tokens, s.Tokens)
		body := strings.TrimSuffix(clipTokens(f, s.Content, keep, placeholder), placeholder)
		f.setText(s, body+staticCutNote(s.Name, f.count(body), s.Tokens))
	}
}

// staticCutNote ends a Static section cut to fit: what was cut and how much
// of it is shown.
func staticCutNote(name string, shown, of int) string {
	return fmt.Sprintf("[… %s cut to fit the window: about %d of its %d tokens shown]", staticWhat(name), shown, of)
}

// staticWhat names a Static section in a cut note.
func staticWhat(name string) string {
	if t, ok := staticTitles[name]; ok {
		return strings.ToLower(t[:1]) + t[1:]
	}
	return name
}

// fitBlocks shows the oldest blocks of a partition by their first line only
// while it is over its share. The scheduler's cascades keep this rare.
func (f *fitter) fitBlocks(p *Partition, omitted *[]string) {
	for i := 0; i < len(p.Sections) && f.cost(p) > p.Budget; i++ {
		s := &p.Sections[i]
		head, _, _ := strings.Cut(s.Content, "\n")
		if head == s.Content {
			continue
		}
		f.setText(s, head)
		*omitted = append(*omitted, s.Source+" shown as its first line")
	}
	for f.cost(p) > p.Budget && len(p.Sections) > 0 {
		*omitted = append(*omitted, p.Sections[0].Source+" left out")
		p.Sections = p.Sections[1:]
	}
}

// fitTail drops a partition's first sections until it fits (the newest
// recalls and the goal, which come last, stay).
func (f *fitter) fitTail(p *Partition, omitted *[]string) {
	for i := range p.Sections {
		if p.Sections[i].Tokens == 0 {
			p.Sections[i].Tokens = f.count(p.Sections[i].Content)
		}
	}
	for f.cost(p) > p.Budget && len(p.Sections) > 1 {
		*omitted = append(*omitted, p.Sections[0].Source+" left out")
		p.Sections = p.Sections[1:]
	}
	if len(p.Sections) == 1 && f.cost(p) > p.Budget {
		s := &p.Sections[0]
		f.setText(s, clipTokens(f, s.Content, s.Tokens-(f.cost(p)-p.Budget)-8, "[… cut to fit]"))
	}
}

// fitWorking shows the oldest Working iterations as their L1 line, then
// leaves them out, until the partition fits what the others left. The
// newest, the step the agent is on, stays whole while it fits alone: it
// becomes a line, or leaves, last.
func (f *fitter) fitWorking(p *Partition, notes []*fold.Note, omitted *[]string) {
	oneLine := func(i int) {
		s, n := &p.Sections[i], notes[i]
		f.setText(s, n.L1)
		s.Messages = []fold.Message{{Role: "assistant", Content: fold.StrPtr(n.L1)}}
		s.MessageTokens = fold.MessagesTokens(f.tok, s.Messages)
		*omitted = append(*omitted, fmt.Sprintf("%s shown as one line", s.Source))
	}
	if n := len(p.Sections); n > 0 {
		// The newest too long to show whole even alone is a line from the
		// start, and the older ones keep what room it leaves.
		if alone := (Partition{Name: p.Name, Sections: p.Sections[n-1:]}); f.cost(&alone) > p.Budget {
			oneLine(n - 1)
		}
	}
	for i := 0; i < len(p.Sections)-1 && f.cost(p) > p.Budget; i++ {
		oneLine(i)
	}
	for f.cost(p) > p.Budget && len(p.Sections) > 0 {
		*omitted = append(*omitted, p.Sections[0].Source+" left out")
		p.Sections = p.Sections[1:]
	}
}

// clipTokens cuts text to about keep tokens, at a line boundary if one is
// near, and appends note. It recounts until the result fits.
func clipTokens(f *fitter, text string, keep int, note string) string {
	if keep <= 0 {
		return note
	}
	cut := text
	for f.count(cut+"\n"+note) > keep && len(cut) > 0 {
		n := len(cut) * keep / max(1, f.count(cut)+f.count(note)+1)
		if n >= len(cut) {
			n = len(cut) - 1
		}
		n = max(0, n)
		for n > 0 && !utf8.RuneStart(cut[n]) {
			n--
		}
		cut = cut[:n]
		if i := strings.LastIndexByte(cut, '\n'); i > len(cut)/2 {
			cut = cut[:i]
		}
	}
	if cut == "" {
		return note
	}
	return cut + "\n" + note
}
