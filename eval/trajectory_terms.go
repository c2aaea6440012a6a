package eval

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// minTermLen is the fewest characters a target or an evidence term has.
const minTermLen = 3

// words splits text into the terms a revisit is checked with: lowercased
// runs of letters, digits and _ . - /, trimmed of . - / at their ends (a
// sentence's full stop, a path's leading slash), of at least minTermLen
// characters with a letter or a digit. They come in order of appearance,
// repeats kept. Paths, ids, dates and symbol names stay whole.
func words(text string) []string {
	var out []string
	start := -1
	emit := func(end int) {
		w := strings.Trim(text[start:end], ".-/")
		if utf8.RuneCountInString(w) >= minTermLen && strings.ContainsFunc(w, isAlnum) {
			out = append(out, strings.ToLower(w))
		}
		start = -1
	}
	for i, r := range text {
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			emit(i)
		}
	}
	if start >= 0 {
		emit(len(text))
	}
	return out
}

// wordSet is the set of text's words.
func wordSet(text string) map[string]bool {
	ws := words(text)
	set := make(map[string]bool, len(ws))
	for _, w := range ws {
		set[w] = true
	}
	return set
}

func isWordRune(r rune) bool {
	return isAlnum(r) || r == '_' || r == '.' || r == '-' || r == '/'
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// callTargets returns what a step's tool calls name: the string values in
// their arguments (every string leaf, objects in key order) that are
// targets, lowercased, without repeats, in order.
func callTargets(calls []journal.ToolCall) []string {
	var out []string
	for _, c := range calls {
		var v any
		if json.Unmarshal(c.Args, &v) != nil {
			continue
		}
		stringLeaves(v, func(s string) {
			s = strings.ToLower(strings.TrimSpace(s))
			if isTarget(s) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		})
	}
	return out
}

// isTarget reports whether an argument value names something a later step
// may come back to: at least minTermLen characters, with a letter or a
// digit, and not only a common English word ("the", "file", "true").
func isTarget(s string) bool {
	if utf8.RuneCountInString(s) < minTermLen || !strings.ContainsFunc(s, isAlnum) {
		return false
	}
	return !scoring.IsStopword(strings.Trim(s, " .,;:!?'\""))
}

// stringLeaves calls fn with each string in a decoded JSON value, object
// members in key order.
func stringLeaves(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			stringLeaves(e, fn)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			stringLeaves(v[k], fn)
		}
	}
}

// callText is what a step's tool calls say: each call's name and
// arguments, one call a line.
func callText(calls []journal.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		if c.Orphan {
			continue
		}
		b.WriteString(c.Name)
		b.WriteByte(' ')
		b.Write(bytes.TrimSpace(c.Args))
		b.WriteByte('\n')
	}
	return b.String()
}

// outputText is what a step's tools answered: the results' outputs.
func outputText(calls []journal.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		if c.Result != nil {
			b.WriteString(c.Result.Output)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// pendingStep is the step as it stands when the agent issues its tool
// calls: its user messages, thought and calls, without results. Calls
// only a result named (orphans) and system notes, which come with or
// after the results, are left out.
func pendingStep(it *journal.Iteration) *journal.Iteration {
	p := *it
	p.Calls = nil
	for _, c := range it.Calls {
		if !c.Orphan {
			c.Result = nil
			p.Calls = append(p.Calls, c)
		}
	}
	p.Notes, p.Events = nil, nil
	p.Status = journal.IterPending
	return &p
}
