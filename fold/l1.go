package fold

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// l1ErrorRunes bounds the error text quoted in an L1 line.
const l1ErrorRunes = 120

// l1ResultRunes bounds a successful call's result that an L1 line quotes
// whole (one line, as long as a shell command the line shows): "write_file
// app.py → ok: wrote 3146 bytes" rather than "→ ok".
const l1ResultRunes = 80

// L1Line renders an iteration as one line (tool-pair folding): each call as
// "tool target → outcome", with templates per tool kind, e.g.
//
//	[iter 83] read_file src/parser/core.py → 214 lines ok
//	[iter 91] run_shell `pytest -q tests/test_ingest.py` → FAILED: AssertionError: assert 4 == 5
//
// An iteration without tool calls shows the first sentence of its thought,
// or of its user message when it has no thought.
func L1Line(it *journal.Iteration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[iter %d] ", it.Number)
	if len(it.Calls) == 0 {
		if it.Thought == "" && len(it.User) > 0 {
			b.WriteString("user: ")
			b.WriteString(firstSentence(it.User[0], 140))
			return b.String()
		}
		b.WriteString("thought: ")
		b.WriteString(firstSentence(it.Thought, 140))
		return b.String()
	}
	for i := range it.Calls {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(callLine(&it.Calls[i]))
	}
	return b.String()
}

// callLine renders one tool call and its outcome.
func callLine(c *journal.ToolCall) string {
	args := parseArgs(c.Args)
	target := ""
	switch scoring.KindOfTool(c.Name) {
	case scoring.ToolRead, scoring.ToolWrite:
		target = args.first("path", "file", "file_path", "filename", "target")
	case scoring.ToolShell:
		if cmd := args.first("command", "cmd", "script"); cmd != "" {
			target = "`" + clipRunes(oneLine(cmd), 80) + "`"
		} else if c.Command != "" {
			target = "`" + clipRunes(oneLine(c.Command), 80) + "`"
		}
	case scoring.ToolSearch:
		if q := args.first("query", "pattern", "q", "regex", "text"); q != "" {
			target = fmt.Sprintf("%q", clipRunes(q, 60))
		}
		if p := args.first("path", "dir", "directory"); p != "" {
			target += " in " + p
		}
	case scoring.ToolList:
		target = args.first("path", "dir", "directory")
	case scoring.ToolHTTP:
		target = args.first("url", "uri", "endpoint")
		if m := args.first("method"); m != "" {
			target = strings.ToUpper(m) + " " + target
		}
	}
	if target == "" {
		target = clipRunes(oneLine(string(c.Args)), 80)
	}
	return fmt.Sprintf("%s %s → %s", c.Name, strings.TrimSpace(target), outcome(c))
}

// outcome summarises a call's result in a few words.
func outcome(c *journal.ToolCall) string {
	r := c.Result
	switch {
	case r == nil:
		return "no result yet"
	case r.Failed():
		line := scoring.ErrorLine(outputTail(r.Output), l1ErrorRunes)
		if line == "" {
			line = clipRunes(lastLine(r.Output), l1ErrorRunes)
		}
		if line == "" {
			return r.Status
		}
		return r.Status + ": " + line
	}
	out := r.Output
	kind := scoring.KindOfTool(c.Name)
	if short, ok := shortResult(kind, out); ok {
		return "ok: " + short
	}
	switch kind {
	case scoring.ToolRead:
		return plural(lineCount(out), "line", "lines") + " ok"
	case scoring.ToolList:
		return plural(lineCount(out), "entry", "entries")
	case scoring.ToolSearch:
		n := lineCount(out)
		if n == 0 {
			return "no matches"
		}
		return plural(n, "match", "matches")
	case scoring.ToolWrite:
		return "ok"
	}
	if tail := outputTail(out); scoring.FailureText(tail) {
		if line := scoring.ErrorLine(tail, l1ErrorRunes); line != "" {
			return "ok, but: " + line
		}
	}
	return "ok, " + byteSize(len(out))
}

// shortResult returns a successful call's result when it is one line of at
// most l1ResultRunes that says more than "ok" and reads as no failure: a
// result as short as the line says more than its size. A read's and a
// listing's are counted instead, in lines and entries.
func shortResult(kind scoring.ToolKind, out string) (string, bool) {
	short := strings.TrimSpace(out)
	switch {
	case kind == scoring.ToolRead, kind == scoring.ToolList, short == "", strings.EqualFold(short, "ok"),
		strings.ContainsAny(short, "\r\n"), utf8.RuneCountInString(short) > l1ResultRunes, scoring.FailureText(short):
		return "", false
	}
	return short, true
}

// toolArgs is a decoded arguments object.
type toolArgs map[string]json.RawMessage

func parseArgs(raw []byte) toolArgs {
	var m toolArgs
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// first returns the first of keys whose value is a non-empty string.
func (a toolArgs) first(keys ...string) string {
	for _, k := range keys {
		var s string
		if v, ok := a[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}

// oneLine folds whitespace runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clipRunes shortens s to at most n runes, ending in "…" when cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// firstSentence returns the first sentence of s, at most n runes.
func firstSentence(s string, n int) string {
	s = oneLine(s)
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			s = s[:i+1]
			break
		}
	}
	return clipRunes(s, n)
}
