package fold

import (
	"strings"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Limits on what a note keeps, so one noisy iteration cannot bloat it.
const (
	noteMaxEntities = 24
	noteErrorRunes  = 200
	bigChangeCount  = 3
)

// makeNote computes an iteration's note. toolsOK holds the tools that have
// succeeded before this iteration; makeNote adds this iteration's.
func makeNote(tok scoring.Tokenizer, it *journal.Iteration, toolsOK map[string]bool, maxOutput int) *Note {
	l0 := RenderL0(tok, it, maxOutput)
	n := &Note{
		Run: it.Run, Number: it.Number, L0: l0.Markdown, L0Msgs: l0.Messages, L0Tokens: l0.MarkdownTokens,
		MsgTokens: l0.MessagesTokens, RawTokens: l0.RawTokens, HasError: it.HasError, StartedAt: journal.TimeText(it.Start),
	}
	for _, sn := range it.Notes {
		n.System = append(n.System, sn.Level+": "+sn.Content)
	}
	n.L1 = L1Line(it)
	n.L1Tokens = tok.Count(n.L1)
	if title, ok := scoring.Milestone(it.Thought); ok {
		n.Milestone = title
	}

	// Text that names what the iteration worked on: thought, user messages,
	// arguments, commands and error lines, but not whole tool outputs, whose
	// bulk would drown the signal.
	var named strings.Builder
	named.WriteString(it.Thought)
	for _, u := range it.User {
		named.WriteString("\n")
		named.WriteString(u)
	}
	firstOK := ""
	deletesOrMoves := false
	for i := range it.Calls {
		c := &it.Calls[i]
		named.WriteString("\n")
		named.WriteString(scoring.ArgText(c.Args))
		if c.Command != "" {
			named.WriteString("\n")
			named.WriteString(c.Command)
		}
		cn := CallNote{Tool: c.Name, Target: callTarget(c), OK: c.Result != nil && !c.Result.Failed(), Pending: c.Result == nil}
		switch {
		case c.Result == nil:
		case c.Result.Failed() || scoring.KindOfTool(c.Name) == scoring.ToolShell && scoring.FailureText(outputTail(c.Result.Output)):
			line := scoring.ErrorLine(outputTail(c.Result.Output), noteErrorRunes)
			if line == "" {
				line = clipRunes(lastLine(c.Result.Output), noteErrorRunes)
			}
			cn.OK, cn.Error = false, line
			n.HasError = true
			n.Errors = append(n.Errors, strings.TrimSpace(c.Name+" "+cn.Target+": "+line))
			named.WriteString("\n")
			named.WriteString(line)
		default:
			for _, ch := range scoring.StateChanges(c.Name, c.Args, c.Command) {
				n.Changes = append(n.Changes, ch.String())
				n.effects = append(n.effects, ch.Effects()...)
				if ch.Op == scoring.ChangeDeleted || ch.Op == scoring.ChangeMoved {
					deletesOrMoves = true
				}
			}
			if !toolsOK[c.Name] && firstOK == "" {
				firstOK = c.Name
			}
			toolsOK[c.Name] = true
		}
		n.Calls = append(n.Calls, cn)
	}
	text := named.String()
	for _, e := range scoring.Entities(text) {
		if len(n.Entities) == noteMaxEntities {
			break
		}
		n.Entities = append(n.Entities, e.Value)
	}
	n.Terms = dedupe(scoring.Terms(text))
	switch {
	case n.HasError:
		n.Protect = ProtectError
	case len(n.Changes) >= bigChangeCount || deletesOrMoves:
		n.Protect = ProtectStateChange
	case firstOK != "":
		n.Protect = ProtectFirstOK
	}
	return n
}

// tailBytes is how much of an output's end is searched for error lines:
// tracebacks, test summaries and exit codes end outputs, and matching the
// error patterns over tens of kilobytes cost more than the rest of a note.
const tailBytes = 4096

// outputTail returns the last tailBytes of an output, from a line start.
func outputTail(out string) string {
	if len(out) <= tailBytes {
		return out
	}
	t := out[len(out)-tailBytes:]
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// callTarget is the main argument of a call: its path, command, query or URL.
func callTarget(c *journal.ToolCall) string {
	a := parseArgs(c.Args)
	if t := a.first("path", "file", "file_path", "filename", "target", "url", "uri", "query", "pattern"); t != "" {
		return clipRunes(t, 80)
	}
	if cmd := a.first("command", "cmd"); cmd != "" {
		return "`" + clipRunes(oneLine(cmd), 60) + "`"
	}
	if c.Command != "" {
		return "`" + clipRunes(oneLine(c.Command), 60) + "`"
	}
	return ""
}

// dedupe removes repeated strings, keeping first appearances in order.
func dedupe(v []string) []string {
	seen := make(map[string]bool, len(v))
	out := v[:0:0]
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
