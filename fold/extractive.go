package fold

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/scoring"
)

// Limits of an extractive summary's parts.
const (
	summarySentences = 3
	summaryKeywords  = 8
	summaryEntities  = 12
	summaryErrors    = 4
	summaryChanges   = 8
	summaryActions   = 6
	chapterKeywords  = 8
	mergedErrors     = 8
	mergedChanges    = 16
)

// Extractive is the offline, deterministic summarizer: rule-based
// compaction first (tool-pair lines, state changes, error lines), and
// sentences selected from the agent's own thoughts.
type Extractive struct{}

var _ Summarizer = Extractive{}

// SummarizerExtractive is the name Extractive records on its blocks.
const SummarizerExtractive = "extractive"

// Summarize folds req at its level. It never fails on well-formed input.
func (Extractive) Summarize(_ context.Context, req *Request) (Summary, error) {
	switch req.Level {
	case L1:
		return extractL1(req), nil
	case L2:
		return extractL2(req), nil
	case L3, L4:
		if len(req.Children) == 0 {
			return Summary{}, fmt.Errorf("level %d summary of iterations %d-%d: no child blocks", req.Level, req.First, req.Last)
		}
		if req.Level == L3 {
			return extractChapter(req), nil
		}
		return extractPhase(req), nil
	}
	return Summary{}, fmt.Errorf("no summary at level %d", req.Level)
}

// extractL1 lists one line per iteration.
func extractL1(req *Request) Summary {
	s := gatherNotes(req)
	var b strings.Builder
	fmt.Fprintf(&b, "[L1 · iterations %s]\n", rangeText(req.First, req.Last))
	for _, n := range req.Notes {
		b.WriteString(n.L1)
		b.WriteByte('\n')
	}
	s.Title = titleFrom(req.Title, s.Keywords, req.First, req.Last)
	s.Content = strings.TrimRight(b.String(), "\n")
	return s
}

// extractL2 summarises a range: sentences chosen from the thoughts, the key
// actions, errors verbatim, state changes, keywords.
func extractL2(req *Request) Summary {
	s := gatherNotes(req)
	s.Title = titleFrom(req.Title, s.Keywords, req.First, req.Last)
	var b strings.Builder
	fmt.Fprintf(&b, "[L2 · iterations %s] %s\n", rangeText(req.First, req.Last), s.Title)
	if sents := pickSentences(thoughts(req), s.Keywords, summarySentences); len(sents) > 0 {
		b.WriteString(strings.Join(sents, " "))
		b.WriteByte('\n')
	}
	if acts := keyActions(req); len(acts) > 0 {
		b.WriteString("Key actions:\n")
		for _, a := range acts {
			b.WriteString("- ")
			b.WriteString(a)
			b.WriteByte('\n')
		}
	}
	writeList(&b, "Errors", s.Errors, summaryErrors)
	writeList(&b, "Changed", s.StateChanges, summaryChanges)
	writeList(&b, "Keywords", s.Keywords, summaryKeywords)
	fmt.Fprintf(&b, "[recall: iterations %s]", rangeText(req.First, req.Last))
	s.Content = b.String()
	return s
}

// extractChapter indexes a chapter from its child blocks.
func extractChapter(req *Request) Summary {
	s := mergeChildren(req)
	s.Title = titleFrom(req.Title, s.Keywords, req.First, req.Last)
	var b strings.Builder
	fmt.Fprintf(&b, "[L3 · iterations %s] %s\n", rangeText(req.First, req.Last), s.Title)
	var pool []string
	for _, c := range req.Children {
		pool = append(pool, c.Title+".")
		pool = append(pool, bodySentences(c.Content)...)
	}
	if sents := pickSentences(pool, s.Keywords, summarySentences); len(sents) > 0 {
		b.WriteString(strings.Join(sents, " "))
		b.WriteByte('\n')
	}
	writeList(&b, "Errors", s.Errors, 2)
	writeList(&b, "Changed", s.StateChanges, 4)
	writeList(&b, "Keywords", s.Keywords, chapterKeywords)
	fmt.Fprintf(&b, "[recall: iterations %s]", rangeText(req.First, req.Last))
	s.Content = b.String()
	return s
}

// extractPhase writes one line for a phase of chapters.
func extractPhase(req *Request) Summary {
	s := mergeChildren(req)
	var titles []string
	for _, c := range req.Children {
		titles = append(titles, c.Title)
	}
	s.Title = titleFrom(req.Title, s.Keywords, req.First, req.Last)
	s.Content = fmt.Sprintf("[L4 · iterations %s] %s — %s [recall: iterations %s]",
		rangeText(req.First, req.Last), s.Title, clipRunes(strings.Join(dedupe(titles), "; "), 200), rangeText(req.First, req.Last))
	return s
}

// gatherNotes collects keywords, entities, errors and state changes of the
// request's iterations.
func gatherNotes(req *Request) Summary {
	s := Summary{Summarizer: SummarizerExtractive}
	var terms []string
	entCount := map[string]int{}
	var ents []string
	for _, n := range req.Notes {
		terms = append(terms, n.Terms...)
		for _, e := range n.Entities {
			if entCount[e] == 0 {
				ents = append(ents, e)
			}
			entCount[e]++
		}
		s.Errors = append(s.Errors, n.Errors...)
		s.StateChanges = append(s.StateChanges, n.Changes...)
	}
	df := req.DF
	if df == nil {
		df = func(string) int { return 0 }
	}
	s.Keywords = scoring.Keywords(terms, df, req.Docs, summaryKeywords)
	// Most mentioned first; first appearance breaks ties (stable sort).
	slices.SortStableFunc(ents, func(a, b string) int { return entCount[b] - entCount[a] })
	s.Entities = ents[:min(len(ents), summaryEntities)]
	s.Errors = dedupe(s.Errors)
	s.StateChanges = dedupe(s.StateChanges)
	if len(req.Notes) > 0 {
		last := req.Notes[len(req.Notes)-1]
		s.Outcome = last.L1
	}
	return s
}

// mergeChildren unions the children's metadata for an L3/L4 block.
func mergeChildren(req *Request) Summary {
	s := Summary{Summarizer: SummarizerExtractive}
	kwCount := map[string]int{}
	var kws []string
	for _, c := range req.Children {
		for _, k := range c.Keywords {
			if kwCount[k] == 0 {
				kws = append(kws, k)
			}
			kwCount[k]++
		}
		s.Entities = append(s.Entities, c.Entities...)
		s.Errors = append(s.Errors, c.Errors...)
		s.StateChanges = append(s.StateChanges, c.StateChanges...)
	}
	slices.SortStableFunc(kws, func(a, b string) int { return kwCount[b] - kwCount[a] })
	s.Keywords = kws[:min(len(kws), chapterKeywords)]
	// Coarser blocks keep the newest of their children's errors and state
	// changes, not all of them: an L4 over a long run would otherwise carry
	// every error of the run, and the window reads it on every build.
	s.Entities = capped(dedupe(s.Entities), summaryEntities*2)
	s.Errors = newest(dedupe(s.Errors), mergedErrors)
	s.StateChanges = newest(dedupe(s.StateChanges), mergedChanges)
	s.Outcome = req.Children[len(req.Children)-1].Outcome
	return s
}

// keyActions picks the L1 lines worth keeping: pinned iterations first
// (errors, first successes, state changes), then the last iteration.
func keyActions(req *Request) []string {
	var out []string
	seen := map[int]bool{}
	for _, n := range req.Pinned {
		out = append(out, n.L1)
		seen[n.Number] = true
	}
	// Then iterations that changed state, newest last, up to the limit.
	for _, n := range req.Notes {
		if len(out) >= summaryActions {
			break
		}
		if !seen[n.Number] && len(n.Changes) > 0 {
			out = append(out, n.L1)
			seen[n.Number] = true
		}
	}
	if len(req.Notes) > 0 {
		if last := req.Notes[len(req.Notes)-1]; !seen[last.Number] {
			out = append(out, last.L1)
		}
	}
	// Show them in the order they happened.
	slices.SortStableFunc(out, func(a, b string) int { return iterOf(a) - iterOf(b) })
	return out
}

// iterOf reads the number back from an "[iter N] …" line.
func iterOf(l1 string) int {
	var n int
	fmt.Sscanf(l1, "[iter %d]", &n)
	return n
}

func thoughts(req *Request) []string {
	var out []string
	for _, it := range req.Iterations {
		out = append(out, splitSentences(it.Thought)...)
	}
	return out
}

// bodySentences returns the sentences of a block's content, without its
// header, lists and recall line.
func bodySentences(content string) []string {
	var out []string
	for i, line := range strings.Split(content, "\n") {
		if i == 0 || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "[") || strings.Contains(line, ":") && !strings.Contains(line, ". ") {
			continue
		}
		out = append(out, splitSentences(line)...)
	}
	return out
}

// pickSentences chooses up to n sentences that best carry the keywords,
// preferring ones that name specific things, and returns them in their
// original order.
func pickSentences(sents []string, keywords []string, n int) []string {
	type scored struct {
		i     int
		score float64
	}
	kw := map[string]bool{}
	for _, k := range keywords {
		kw[k] = true
	}
	var cands []scored
	seen := map[string]bool{}
	for i, s := range sents {
		s = strings.TrimSpace(s)
		if len([]rune(s)) < 12 || seen[s] {
			continue
		}
		seen[s] = true
		sc := 0.0
		for _, t := range scoring.Terms(s) {
			if kw[t] {
				sc++
			}
		}
		sc += 0.5 * float64(len(scoring.Entities(s)))
		// Long sentences cost the reader more; prefer tighter ones.
		sc /= 1 + float64(len(s))/200
		cands = append(cands, scored{i, sc})
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.i - b.i
	})
	cands = cands[:min(n, len(cands))]
	slices.SortFunc(cands, func(a, b scored) int { return a.i - b.i })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = clipRunes(strings.TrimSpace(sents[c.i]), 240)
	}
	return out
}

// splitSentences cuts text at sentence ends followed by a space or newline.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n' || (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n')
		if end {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func titleFrom(given string, keywords []string, first, last int) string {
	if given != "" {
		return clipRunes(given, 80)
	}
	if len(keywords) == 0 {
		return "Iterations " + rangeText(first, last)
	}
	return "Work on " + strings.Join(keywords[:min(3, len(keywords))], ", ")
}

// capped keeps the first n items; newest keeps the last n.
func capped(v []string, n int) []string { return v[:min(n, len(v))] }
func newest(v []string, n int) []string { return v[max(0, len(v)-n):] }

func writeList(b *strings.Builder, label string, items []string, n int) {
	if len(items) == 0 {
		return
	}
	shown := items[:min(n, len(items))]
	fmt.Fprintf(b, "%s: %s", label, strings.Join(shown, "; "))
	if more := len(items) - len(shown); more > 0 {
		fmt.Fprintf(b, " (+%d more)", more)
	}
	b.WriteByte('\n')
}

func rangeText(first, last int) string {
	if first == last {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d–%d", first, last)
}
