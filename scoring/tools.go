package scoring

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// ToolKind classifies what a tool does, as far as its name tells.
type ToolKind string

// The tool kinds.
const (
	// ToolRead reads a file or a resource without changing it.
	ToolRead ToolKind = "read"
	// ToolWrite creates, edits or deletes files.
	ToolWrite ToolKind = "write"
	// ToolShell runs commands.
	ToolShell ToolKind = "shell"
	// ToolSearch searches files, code or the web.
	ToolSearch ToolKind = "search"
	// ToolList lists directories or matches globs.
	ToolList ToolKind = "list"
	// ToolHTTP fetches URLs or calls web APIs.
	ToolHTTP ToolKind = "http"
	// ToolOther is any tool whose name says none of the above.
	ToolOther ToolKind = "other"
)

// toolKeywords lists, in order of precedence, the words that make a tool
// name a given kind.
var toolKeywords = []struct {
	kind  ToolKind
	words map[string]struct{}
}{
	{ToolWrite, set(`write edit create patch apply replace save delete remove
		rm move rename insert append update modify mkdir touch`)},
	{ToolShell, set(`shell bash sh zsh exec execute run runs running runner command
		cmd terminal console subprocess spawn python interpreter`)},
	{ToolSearch, set(`search grep rg ripgrep find query lookup locate`)},
	{ToolList, set(`list ls dir dirs directory directories glob tree listdir`)},
	{ToolHTTP, set(`http https fetch curl wget request requests url get_url browse
		browser web download api`)},
	{ToolRead, set(`read cat view open show head tail inspect load`)},
}

// toolSubstrings are fallbacks for names written as one run-together word
// ("readfile", "websearch"), tried in the same precedence order. They are
// long enough not to occur by accident inside ordinary words.
var toolSubstrings = []struct {
	kind ToolKind
	subs []string
}{
	{ToolWrite, []string{"write", "edit", "create", "patch", "replace", "save", "delete"}},
	{ToolShell, []string{"shell", "bash", "exec", "command", "terminal"}},
	{ToolSearch, []string{"search", "grep", "query"}},
	{ToolList, []string{"list", "glob"}},
	{ToolHTTP, []string{"http", "fetch", "curl", "request", "browse", "web"}},
	{ToolRead, []string{"read", "view"}},
}

// KindOfTool classifies a tool by its name, case-insensitively.
//
// The name is split into words at non-alphanumeric characters and camelCase
// boundaries ("ReadFile", "read_file", "read-file" all give "read", "file").
// A word matches a keyword exactly or with an inflection suffix ("reader",
// "searching", "edits"). When several kinds match, the first in this order
// wins:
//
//	write  > shell > search > list > http > read
//
// so "read_write" is write, "web_search" is search, "read_dir" is list and
// "open_url" is http. Write comes first because a tool that may change state
// must never be mistaken for a read-only one. If no word matches, the whole
// lower-cased name is searched for unambiguous substrings ("readfile",
// "websearch"). Anything else is ToolOther.
//
// Keywords: write: write, edit, create, patch, apply, replace, save, delete,
// remove, move, rename, insert, append, update, modify; shell: shell, bash,
// exec, execute, run, command, cmd, terminal, python; search: search, grep,
// find, query, lookup; list: list, ls, dir, directory, glob, tree; http:
// http, fetch, curl, wget, request, url, browse, web, download; read: read,
// cat, view, open, show, head, tail.
func KindOfTool(name string) ToolKind {
	words := nameWords(name)
	for _, k := range toolKeywords {
		for _, w := range words {
			if matchesKeyword(w, k.words) {
				return k.kind
			}
		}
	}
	flat := strings.ToLower(name)
	for _, k := range toolSubstrings {
		for _, sub := range k.subs {
			if strings.Contains(flat, sub) {
				return k.kind
			}
		}
	}
	return ToolOther
}

// nameWords splits a tool name into lower-cased words.
func nameWords(name string) []string {
	var words []string
	forEachSegment(name, func(a, b int) {
		seg := name[a:b]
		forEachCamelPart(seg, func(c, d int) {
			words = append(words, strings.ToLower(seg[c:d]))
		})
	})
	return words
}

// inflections are suffixes that keep a word's tool meaning.
var inflections = []string{"s", "es", "ed", "d", "er", "ers", "r", "or", "ing", "ning"}

// matchesKeyword reports whether w is a keyword, or a keyword of four or
// more letters with an inflection suffix.
func matchesKeyword(w string, keywords map[string]struct{}) bool {
	if _, ok := keywords[w]; ok {
		return true
	}
	for _, suf := range inflections {
		if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) >= 4 {
			if _, ok := keywords[stem]; ok {
				return true
			}
			// "writer" - "r" = "write", "saving" + "e" = "save".
			if _, ok := keywords[stem+"e"]; ok && suf == "ing" {
				return true
			}
		}
	}
	return false
}

// ChangeOp is the kind of a state change.
type ChangeOp string

// The state-change operations.
const (
	// ChangeCreated means a file or directory was created.
	ChangeCreated ChangeOp = "created"
	// ChangeModified means a file was written or edited in place.
	ChangeModified ChangeOp = "modified"
	// ChangeDeleted means a file or directory was removed.
	ChangeDeleted ChangeOp = "deleted"
	// ChangeMoved means a file was moved or renamed from Path to To.
	ChangeMoved ChangeOp = "moved"
	// ChangeInstalled means a package was installed; Path names it.
	ChangeInstalled ChangeOp = "installed"
	// ChangeCopied means Path was copied to To, which the copy made.
	ChangeCopied ChangeOp = "copied"
	// ChangeLinked means To was made a link to Path, as ln TARGET LINK.
	ChangeLinked ChangeOp = "linked"
	// ChangeMode means Path's permissions were set to Value (chmod).
	ChangeMode ChangeOp = "chmod"
	// ChangeOwner means Path's owner or group was set to Value (chown,
	// chgrp).
	ChangeOwner ChangeOp = "chown"
)

// StateChange is one inferred change to the environment.
type StateChange struct {
	// Op is what happened.
	Op ChangeOp
	// Path is the file, directory or package affected, as written: the
	// source of a move or copy, the target of a link.
	Path string
	// To is the destination of a move or copy, or the link ln made;
	// empty otherwise.
	To string
	// Value is the mode of a chmod or the owner of a chown, as written;
	// empty otherwise.
	Value string
}

// String renders the change for people: "created src/a.py",
// "moved a.py → b.py", "copied a.py → b.py", "linked current → v2" (the
// link first, as ls -l shows it), "chmod +x run.sh", "installed requests".
func (c StateChange) String() string {
	switch {
	case c.Op == ChangeMoved || c.Op == ChangeCopied:
		return string(c.Op) + " " + c.Path + " → " + c.To
	case c.Op == ChangeLinked:
		return string(c.Op) + " " + c.To + " → " + c.Path
	case c.Op == ChangeMode || c.Op == ChangeOwner:
		return string(c.Op) + " " + c.Value + " " + c.Path
	case c.Path == "":
		return string(c.Op)
	}
	return string(c.Op) + " " + c.Path
}

// Changed returns the paths, as written, whose state the change changed:
// both ends of a move, the copy (not the original) of a copy, the link
// (not its target) of a link, and the Path of the rest.
func (c StateChange) Changed() []string {
	switch c.Op {
	case ChangeMoved:
		return []string{c.Path, c.To}
	case ChangeCopied, ChangeLinked:
		return []string{c.To}
	}
	return []string{c.Path}
}

// pathKeys are the argument names that carry the file a write tool changes,
// in order of preference.
var pathKeys = []string{"path", "file_path", "filepath", "file", "filename", "file_name",
	"target", "target_file", "source", "src", "old_path"}

// destKeys are the argument names that carry the destination of a move.
var destKeys = []string{"new_path", "destination", "dest", "to", "target_path", "new_name"}

// StateChanges infers what a successful action changed, from tool semantics.
// Only call it for actions that succeeded; it cannot tell.
//
// tool is the tool name, args its raw JSON arguments and command the shell
// command it ran, if any. args that are not valid JSON, or not an object, are
// ignored. Changes come out in this order, exact duplicates once:
//
//  1. For a write-kind tool ([KindOfTool]) with a path argument (path,
//     file_path, filepath, file, filename, file_name, target, target_file,
//     source, src, old_path; the first present wins): deleted if the name
//     says delete/remove/rm; moved if it says move/rename and a destination
//     argument (new_path, destination, dest, to, target_path, new_name) is
//     present; created if the name has the word "new" or contains "create",
//     or args has "command" or "mode" equal to "create"; otherwise modified.
//     An editor call whose "command" is "view" changes nothing. Without a
//     path argument, a "patch", "diff" or "input" argument holding a patch
//     ("*** Add File:", "*** Update File:", "*** Delete File:", or unified
//     "---"/"+++" headers) yields one change per file.
//  2. The shell command: command, or for a shell-kind tool with an empty
//     command, the "command" or "cmd" argument (a string, or an argv array
//     such as ["bash", "-lc", "script"]).
//
// The command line is split into simple commands at &&, ||, ;, |, & and
// newlines, honouring single and double quotes and backslash escapes;
// here-document bodies and comments are skipped, and leading VAR=value
// assignments and the wrappers sudo, env, command, time, nohup and exec are
// stripped. Then:
//
//	mv / git mv A B        moved A → B (several sources, or B ending in
//	                       "/": each → B/base)
//	rm / git rm / rmdir /
//	unlink P...            deleted each P (git rm --cached changes nothing)
//	touch / mkdir P...     created each P
//	install -d P...        created each P
//	cp / install A B       copied A → B (several sources: each → B/base)
//	ln [-s] A B            linked B → A (one operand: linked base(A) → A)
//	chmod MODE P...        chmod MODE each P
//	chown / chgrp O P...   chown O each P
//	tee [-a] F...          modified each F
//	truncate F...          modified each F
//	dd of=F                modified F
//	> F, >> F, &> F, 2> F  modified F (never /dev/...)
//	sed -i ... F...        modified each F (sed without -i changes nothing)
//	git restore F...,
//	git checkout -- F...   modified each F (git restore --staged alone
//	                       changes nothing)
//	pip/pip3/python -m pip/uv pip install, npm/pnpm install|i|add,
//	yarn/poetry/uv add, cargo add|install, apt/apt-get/brew/gem/conda/dnf/
//	yum install, apk add, go get|install X...
//	                       installed each package, as written
//
// Paths are reported as written: cd is not followed, variables and globs are
// not expanded, and operands holding a command substitution are skipped.
// Options are skipped. Other commands change nothing. Redirections and tee
// report "modified" because whether the file existed before is unknown.
func StateChanges(tool string, args []byte, command string) []StateChange {
	var obj map[string]json.RawMessage
	if len(args) > 0 && json.Unmarshal(args, &obj) != nil {
		obj = nil
	}
	var out []StateChange
	kind := KindOfTool(tool)
	if kind == ToolWrite && obj != nil {
		out = append(out, writeToolChanges(tool, obj)...)
	}
	if command == "" && kind == ToolShell && obj != nil {
		command = commandArg(obj)
	}
	if command != "" {
		for _, sc := range parseShell(command) {
			out = append(out, simpleCommandChanges(sc)...)
		}
	}
	return dedupChanges(out)
}

// writeToolChanges infers the changes of a write-kind tool call.
func writeToolChanges(tool string, obj map[string]json.RawMessage) []StateChange {
	sub := strings.ToLower(stringArg(obj, "command", "mode", "action", "operation"))
	switch sub {
	case "view", "read", "list", "show", "cat":
		return nil
	}
	words := nameWords(tool)
	has := func(ws ...string) bool {
		for _, w := range ws {
			if slices.Contains(words, w) {
				return true
			}
		}
		return false
	}
	p := stringArg(obj, pathKeys...)
	if p == "" {
		return patchChanges(stringArg(obj, "patch", "diff", "input"))
	}
	switch {
	case has("delete", "remove", "rm", "unlink") || sub == "delete" || sub == "remove":
		return []StateChange{{Op: ChangeDeleted, Path: p}}
	case has("move", "rename", "mv") || sub == "move" || sub == "rename":
		if to := stringArg(obj, destKeys...); to != "" {
			return []StateChange{{Op: ChangeMoved, Path: p, To: to}}
		}
		return []StateChange{{Op: ChangeModified, Path: p}}
	case has("create", "new") || strings.Contains(strings.ToLower(tool), "create") || sub == "create":
		return []StateChange{{Op: ChangeCreated, Path: p}}
	}
	return []StateChange{{Op: ChangeModified, Path: p}}
}

// stringArg returns the first non-empty string value among keys, trimmed.
func stringArg(obj map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// patchChanges reads the file headers of a patch: the "*** Add File:" style
// used by apply_patch tools, or unified diff "---"/"+++" headers.
func patchChanges(patch string) []StateChange {
	if patch == "" {
		return nil
	}
	var out []StateChange
	var from string // the "---" path of a unified diff
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			out = append(out, StateChange{Op: ChangeCreated, Path: strings.TrimSpace(line[len("*** Add File: "):])})
		case strings.HasPrefix(line, "*** Update File: "):
			out = append(out, StateChange{Op: ChangeModified, Path: strings.TrimSpace(line[len("*** Update File: "):])})
		case strings.HasPrefix(line, "*** Delete File: "):
			out = append(out, StateChange{Op: ChangeDeleted, Path: strings.TrimSpace(line[len("*** Delete File: "):])})
		case strings.HasPrefix(line, "*** Move to: "):
			if n := len(out); n > 0 && out[n-1].Op == ChangeModified {
				out[n-1] = StateChange{Op: ChangeMoved, Path: out[n-1].Path, To: strings.TrimSpace(line[len("*** Move to: "):])}
			}
		case strings.HasPrefix(line, "--- "):
			from = diffPath(line[4:], "a/")
		case strings.HasPrefix(line, "+++ "):
			to := diffPath(line[4:], "b/")
			switch {
			case from == "" && to == "":
			case from == "":
				out = append(out, StateChange{Op: ChangeCreated, Path: to})
			case to == "":
				out = append(out, StateChange{Op: ChangeDeleted, Path: from})
			case from != to:
				out = append(out, StateChange{Op: ChangeMoved, Path: from, To: to})
			default:
				out = append(out, StateChange{Op: ChangeModified, Path: to})
			}
			from = ""
		}
	}
	return out
}

// diffPath returns the path of a unified diff header, without its a/ or b/
// prefix and timestamp; "" for /dev/null.
func diffPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}

// dedupChanges drops exact repeats, keeping first occurrences in order.
func dedupChanges(cs []StateChange) []StateChange {
	if len(cs) < 2 {
		return cs
	}
	seen := make(map[StateChange]struct{}, len(cs))
	out := cs[:0]
	for _, c := range cs {
		if _, ok := seen[c]; ok {
			continue
		}
		seen[c] = struct{}{}
		out = append(out, c)
	}
	return out
}

// ArgText flattens the string values of a tool call's JSON arguments into
// text, one per line: what the call names (paths, commands, queries, ids,
// dates). Values nested in arrays and objects count too, keys in order at
// each level and items in theirs: a booking tool's flights, a batch edit's
// paths. File contents being written ("content", at any level) are left
// out; their bulk is not what the call is about, the path is. Arguments
// that are not a JSON object come back as they are.
func ArgText(raw []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return string(raw)
	}
	w := argWriter{left: maxArgStrings}
	w.object(obj, 0)
	return w.b.String()
}

// Bounds of ArgText: how deep it reads nested arguments, and how many
// strings it gives. A call names a few things; one that carries hundreds
// of values (rows to insert, a batch) carries data, and its first values
// say what it is about.
const (
	maxArgDepth   = 8
	maxArgStrings = 256
)

// argWriter collects the string values of a call's arguments (ArgText).
type argWriter struct {
	b    strings.Builder
	left int
}

// object writes the string values of obj, keys in order, reading nested
// objects and arrays up to maxArgDepth.
func (w *argWriter) object(obj map[string]json.RawMessage, depth int) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if k != "content" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.value(obj[k], depth)
	}
}

// value writes the string values of one JSON value.
func (w *argWriter) value(raw json.RawMessage, depth int) {
	v := bytes.TrimLeft(raw, " \t\r\n")
	if len(v) == 0 || w.left == 0 {
		return
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			w.b.WriteString(s)
			w.b.WriteByte('\n')
			w.left--
		}
	case '{':
		var obj map[string]json.RawMessage
		if depth < maxArgDepth && json.Unmarshal(v, &obj) == nil {
			w.object(obj, depth+1)
		}
	case '[':
		var items []json.RawMessage
		if depth < maxArgDepth && json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				w.value(it, depth+1)
			}
		}
	}
}
