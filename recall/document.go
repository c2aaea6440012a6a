package recall

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Bounds on what an iteration's document takes from a tool output. Long
// outputs are indexed in part, but always with their error line and the
// entities (file names, paths) of their head and tail.
const (
	outputHead = 2048
	outputTail = 1024
	// entityScan is how much of an output's head and of its tail is
	// scanned for entities.
	entityScan = 8192
)

// document is one bleve document: an iteration or a block.
type document struct {
	id     string
	run    string
	kind   string
	first  int
	last   int
	level  int
	failed bool
	text   string
	// said is an iteration's prose (its user messages and thought), whose
	// words are also indexed as concepts: tool calls and outputs name
	// files and values more than things a lexicon knows.
	said string
	// ids are the entities the content names anywhere, outputs included.
	// An iteration's acts (those its thoughts and actions name: arguments,
	// commands, error lines) and changed (those it created, modified,
	// moved or deleted) are not indexed: a catch-up saves them as the
	// iteration's mentions (mentions.go).
	ids     []string
	acts    []string
	changed []string
	// shown are the entities only its outputs name (mentionShown).
	shown []string
	// args are its calls' short string arguments (mentionArg).
	args []string
}

func (d *document) fields() map[string]any {
	f := map[string]any{
		fieldRun: d.run, fieldKind: d.kind, fieldFirst: float64(d.first), fieldLast: float64(d.last),
		fieldFirstSpan: joinLines(spanTerms(d.first)), fieldLastSpan: joinLines(spanTerms(d.last)), fieldLevel: float64(d.level),
	}
	if d.kind == KindBlock {
		f[fieldSummary] = d.text
	} else {
		f[fieldText] = d.text
		if strings.TrimSpace(d.said) != "" {
			f[fieldConcepts] = d.said
		}
	}
	if len(d.ids) > 0 {
		f[fieldIDs] = joinLines(d.ids)
	}
	return f
}

// docID names a document: "i:<n>@<run>" or "b:<block>@<run>". The run comes
// last so that neither an iteration number nor a block id needs escaping.
func docID(kind, key, run string) string {
	return kind[:1] + ":" + key + "@" + run
}

// parseDocID splits a document id into kind and key.
func parseDocID(id string) (kind, key string, ok bool) {
	k, rest, ok := strings.Cut(id, ":")
	if !ok {
		return "", "", false
	}
	key, _, ok = strings.Cut(rest, "@")
	switch k {
	case "i":
		return KindIteration, key, ok
	case "b":
		return KindBlock, key, ok
	}
	return "", "", false
}

// iterationDoc builds an iteration's document from the journal.
func iterationDoc(it *journal.Iteration) document {
	d := document{id: docID(KindIteration, strconv.Itoa(it.Number), it.Run), run: it.Run, kind: KindIteration, first: it.Number, last: it.Number}
	var text, named strings.Builder
	n := readNames(it, &text, &named)
	d.failed, d.acts, d.changed, d.args, d.said = n.failed, n.acts, n.changed, n.args, n.said
	d.ids = d.acts
	out := entityIDs(named.String())
	for _, e := range out {
		d.ids = appendEntity(d.ids, e)
	}
	d.shown = shownOnly(d.acts, out)
	d.text = text.String() + partsText(d.ids)
	return d
}

// iterationNames is what an iteration names in its thought and actions.
type iterationNames struct {
	// acts are the entities of its user messages, thought, actions
	// (arguments, commands) and error lines; changed, those it created,
	// modified, moved or deleted.
	acts    []string
	changed []string
	// shown are the entities its tool outputs name and its acts do not.
	shown []string
	// args are the short string arguments of its tool calls, lower-cased
	// (argValues).
	args   []string
	failed bool
	// said is its user messages and thought: what it says in prose.
	said string
}

// Bounds of argValues: a value longer than maxArgValue is text (a file's
// content, a long message), not a target; each line of a value counts on
// its own (scoring.ArgText), so the bound is a line's. A command line with
// its options, or a URL with its query, runs past a hundred characters and
// is still what the call acts on (64 until 2026-11-29). maxArgs caps the
// values of one iteration.
const (
	maxArgValue = 200
	maxArgs     = 16
)

// argValues returns the short string arguments of calls, lower-cased and
// without repeats: the paths, ids, dates and queries a call acted on,
// which a later call taking the same value returns to.
func argValues(calls []journal.ToolCall) []string {
	var out []string
	for i := range calls {
		for v := range strings.SplitSeq(scoring.ArgText(calls[i].Args), "\n") {
			v = strings.ToLower(strings.TrimSpace(v))
			if len(v) < 3 || len(v) > maxArgValue || scoring.IsStopword(v) || !strings.ContainsFunc(v, isAlnum) || slices.Contains(out, v) {
				continue
			}
			if len(out) == maxArgs {
				return out
			}
			out = append(out, v)
		}
	}
	return out
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// shownOnly returns the entities of out that acts does not hold, at most
// maxShown of them.
func shownOnly(acts, out []string) []string {
	var shown []string
	for _, e := range out {
		if len(shown) == maxShown {
			break
		}
		if !slices.Contains(acts, e) {
			shown = append(shown, e)
		}
	}
	return shown
}

// readNames reads what an iteration names. text, if not nil, receives the
// document's text (without the entities spelled as words); named, if not
// nil, the parts of its outputs whose entities the document also holds
// and the mentions keep as shown.
func readNames(it *journal.Iteration, text, named *strings.Builder) iterationNames {
	var n iterationNames
	var acts strings.Builder
	for _, u := range it.User {
		acts.WriteString(u)
		acts.WriteByte('\n')
	}
	acts.WriteString(it.Thought)
	acts.WriteByte('\n')
	n.said = acts.String()
	if text != nil {
		text.WriteString(n.said)
	}
	for i := range it.Calls {
		c := &it.Calls[i]
		line := c.Name + " " + scoring.ArgText(c.Args) + " " + c.Command + "\n"
		acts.WriteString(line)
		if c.Result == nil {
			if text != nil {
				text.WriteString(line)
			}
			continue
		}
		out := c.Result.Output
		if text != nil {
			text.WriteString(line)
			text.WriteString(excerpt(out, outputHead, outputTail))
			text.WriteByte('\n')
		}
		if named != nil {
			named.WriteString(excerpt(out, entityScan, entityScan))
			named.WriteByte('\n')
		}
		// Failure text is looked for in shell outputs only, as the notes
		// do: matching the patterns costs more than the rest of the
		// document, and other tools report failure by status.
		tail := excerpt(out, 0, 4096)
		if c.Result.Failed() || scoring.KindOfTool(c.Name) == scoring.ToolShell && scoring.FailureText(tail) {
			n.failed = true
			if line := scoring.ErrorLine(tail, 300); line != "" {
				if text != nil {
					text.WriteString(line)
					text.WriteByte('\n')
				}
				acts.WriteString(line)
				acts.WriteByte('\n')
			}
			continue
		}
		for _, ch := range scoring.StateChanges(c.Name, c.Args, c.Command) {
			for _, p := range ch.Changed() {
				n.changed = appendEntity(n.changed, p)
			}
		}
	}
	n.acts = entityIDs(acts.String())
	n.args = argValues(it.Calls)
	return n
}

// BlockDoc is what the index needs of a block.
type BlockDoc struct {
	ID           string
	Level        int
	First, Last  int
	Title        string
	Content      string
	Outcome      string
	Keywords     []string
	Entities     []string
	StateChanges []string
	Errors       []string
}

// blockDoc builds a block's document.
func blockDoc(run string, b *BlockDoc) document {
	d := document{id: docID(KindBlock, b.ID, run), run: run, kind: KindBlock, first: b.First, last: b.Last, level: b.Level,
		failed: len(b.Errors) > 0}
	var text strings.Builder
	for _, s := range []string{b.Title, b.Content, b.Outcome, strings.Join(b.Keywords, " "), strings.Join(b.StateChanges, "\n"), strings.Join(b.Errors, "\n")} {
		text.WriteString(s)
		text.WriteByte('\n')
	}
	for _, e := range b.Entities {
		d.ids = appendEntity(d.ids, e)
	}
	for _, e := range entityIDs(text.String()) {
		d.ids = appendEntity(d.ids, e)
	}
	d.text = text.String() + partsText(d.ids)
	return d
}

// entityIDs returns the entities of text as index terms: lower-cased, with
// the base name of each path as well, so that "worker_bfe.py" finds
// "src/storage/worker_bfe.py".
func entityIDs(text string) []string {
	var out []string
	for _, e := range scoring.Entities(text) {
		out = appendEntity(out, e.Value)
	}
	return out
}

// entityTerm is the index term of an entity value.
func entityTerm(v string) string {
	return strings.ToLower(strings.TrimSpace(v))
}

// appendEntity adds an entity and, for a path, its base name, skipping
// empties and repeats.
func appendEntity(dst []string, v string) []string {
	v = entityTerm(v)
	if v == "" {
		return dst
	}
	if !slices.Contains(dst, v) {
		dst = append(dst, v)
	}
	if strings.Contains(v, "/") && !strings.Contains(v, "://") {
		if base := path.Base(strings.TrimRight(v, "/")); base != "" && base != "." && base != "/" && !slices.Contains(dst, base) {
			dst = append(dst, base)
		}
	}
	return dst
}

// partsText spells entities as words ("data cache 3d5a4 json"), so that a
// keyword search for a part of an identifier finds it.
func partsText(ids []string) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strings.Map(func(r rune) rune {
			switch r {
			case '/', '_', '.', '-', ':', '\\':
				return ' '
			}
			return r
		}, id))
		b.WriteByte('\n')
	}
	return b.String()
}

// excerpt returns the first head and last tail bytes of s, cut at line
// boundaries, or s itself when it is short.
func excerpt(s string, head, tail int) string {
	if len(s) <= head+tail {
		return s
	}
	h := s[:head]
	if i := strings.LastIndexByte(h, '\n'); i > head/2 {
		h = h[:i]
	}
	t := s[len(s)-tail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < tail/2 {
		t = t[i+1:]
	}
	if head == 0 {
		return strings.ToValidUTF8(t, "")
	}
	return strings.ToValidUTF8(h, "") + "\n…\n" + strings.ToValidUTF8(t, "")
}
