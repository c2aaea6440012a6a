package scoring

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// commandArg returns the shell command of a shell tool's arguments: the
// "command" or "cmd" string, or an argv array, unwrapping "sh -c script".
func commandArg(obj map[string]json.RawMessage) string {
	if c := stringArg(obj, "command", "cmd"); c != "" {
		return c
	}
	for _, k := range []string{"command", "cmd", "argv"} {
		var argv []string
		if json.Unmarshal(obj[k], &argv) != nil || len(argv) == 0 {
			continue
		}
		if len(argv) == 3 && strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
			switch path.Base(argv[0]) {
			case "sh", "bash", "zsh", "dash":
				return argv[2]
			}
		}
		for i, a := range argv {
			argv[i] = shellQuote(a)
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// shellQuote quotes a word for parseShell when it needs quoting.
func shellQuote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\;&|<>()$`*?#") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// simpleCommand is one command of a pipeline or list: its words and the
// files its output is redirected to.
type simpleCommand struct {
	words     []string
	redirects []string
}

// Word roles in parseShell: what the next complete word is.
const (
	nextArg      = iota // an argument of the current command
	nextRedirect        // the target of an output redirection
	nextHeredoc         // a here-document delimiter
	nextSkip            // an input file or here-string: ignored
)

// parseShell splits a command line into simple commands. It understands
// quoting, backslash escapes, comments, the operators && || ; | & and
// newlines, subshell parentheses, redirections (>, >>, >|, &>, N>, N>&M, <,
// <<<) and here-documents, whose bodies it skips. $(...) and backquoted
// substitutions are kept inside words.
func parseShell(line string) []simpleCommand {
	var (
		cmds     []simpleCommand
		cur      simpleCommand
		word     strings.Builder
		inWord   bool
		next     = nextArg
		heredocs []string // delimiters of here-documents starting after this line
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch next {
		case nextHeredoc:
			heredocs = append(heredocs, w)
		case nextRedirect:
			cur.redirects = append(cur.redirects, w)
		case nextSkip:
		default:
			cur.words = append(cur.words, w)
		}
		next = nextArg
	}
	endCmd := func() {
		endWord()
		if len(cur.words) > 0 || len(cur.redirects) > 0 {
			cmds = append(cmds, cur)
		}
		cur = simpleCommand{}
		next = nextArg
	}
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	i := 0
	for i < len(line) {
		c := line[i]
		switch {
		case c == '\\':
			if i+1 < len(line) && line[i+1] != '\n' {
				word.WriteByte(line[i+1])
				inWord = true
			}
			i += 2
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			i++
		case c == '`' || c == '$' && strings.HasPrefix(line[i:], "$("):
			// A command substitution: copy it into the word unparsed.
			j := substitutionEnd(line, i)
			word.WriteString(line[i:j])
			inWord = true
			i = j
		case c == '#' && !inWord:
			for i < len(line) && line[i] != '\n' {
				i++
			}
		case c == '\n':
			endCmd()
			i++
			for _, delim := range heredocs {
				i = skipHeredoc(line, i, delim)
			}
			heredocs = nil
		case c == ';' || c == '|' || c == '&' && !strings.HasPrefix(line[i:], "&>"):
			endCmd()
			for i++; i < len(line) && (line[i] == '|' || line[i] == '&' || line[i] == ';'); i++ {
			}
		case c == '(' || c == ')':
			endCmd()
			i++
		case c == '<':
			endWord()
			n := 0
			for i < len(line) && line[i] == '<' {
				i++
				n++
			}
			switch n {
			case 2:
				if i < len(line) && line[i] == '-' {
					i++
				}
				next = nextHeredoc
			default: // < file, <<< word: read, not changed
				next = nextSkip
			}
		case c == '>' || c == '&' || isDigit(c) && !inWord && fdRedirect(line[i:]):
			endWord()
			for i < len(line) && isDigit(line[i]) {
				i++
			}
			if i < len(line) && line[i] == '&' {
				i++
			}
			for i < len(line) && line[i] == '>' {
				i++
			}
			if i < len(line) && line[i] == '|' {
				i++
			}
			if i < len(line) && line[i] == '&' {
				// >&M or >&-: duplicates or closes a descriptor.
				for i++; i < len(line) && (isDigit(line[i]) || line[i] == '-'); i++ {
				}
				continue
			}
			next = nextRedirect
		case isSpaceByte(c):
			endWord()
			i++
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCmd()
	return cmds
}

// substitutionEnd returns the index just past the command substitution that
// starts at line[i], either `...` or $(...) with nested parentheses.
func substitutionEnd(line string, i int) int {
	if line[i] == '`' {
		if j := strings.IndexByte(line[i+1:], '`'); j >= 0 {
			return i + j + 2
		}
		return len(line)
	}
	depth := 0
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(line)
}

// skipHeredoc returns the index just past the line, starting at i, that
// consists of delim (leading tabs and spaces allowed, as with <<-).
func skipHeredoc(line string, i int, delim string) int {
	for i < len(line) {
		end := strings.IndexByte(line[i:], '\n')
		var l string
		if end < 0 {
			l, i = line[i:], len(line)
		} else {
			l, i = line[i:i+end], i+end+1
		}
		if strings.TrimSpace(l) == delim {
			break
		}
	}
	return i
}

// fdRedirect reports whether s starts with a file descriptor number followed
// by '>', as in "2>err.log".
func fdRedirect(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '>'
}

// simpleCommandChanges infers the changes of one simple command.
func simpleCommandChanges(sc simpleCommand) []StateChange {
	var out []StateChange
	w := stripWrappers(sc.words)
	if len(w) > 0 {
		out = commandChanges(path.Base(w[0]), w[1:])
	}
	for _, r := range sc.redirects {
		if r != "" && !strings.HasPrefix(r, "/dev/") {
			out = append(out, StateChange{Op: ChangeModified, Path: r})
		}
	}
	return out
}

// stripWrappers drops variable assignments and wrapper commands from the
// front of a command's words.
func stripWrappers(w []string) []string {
	for len(w) > 0 {
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case w[0] == "sudo" || w[0] == "env" || w[0] == "command" || w[0] == "time" ||
			w[0] == "nohup" || w[0] == "exec" || w[0] == "builtin":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		default:
			return w
		}
	}
	return w
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	k := strings.IndexByte(w, '=')
	return k > 0 && isIdentWord(w[:k])
}

// commandChanges infers the changes of command name with arguments args.
func commandChanges(name string, args []string) []StateChange {
	switch name {
	case "mv":
		return moveChanges(args, ChangeMoved)
	case "cp":
		return moveChanges(args, ChangeCreated)
	case "rm", "rmdir", "unlink":
		return each(ChangeDeleted, operands(args, nil))
	case "touch":
		return each(ChangeCreated, operands(args, set("-d -t -r")))
	case "mkdir":
		return each(ChangeCreated, operands(args, set("-m --mode")))
	case "tee":
		return each(ChangeModified, operands(args, nil))
	case "sed", "gsed":
		return sedChanges(args)
	case "git":
		return gitChanges(args)
	case "go":
		if len(args) > 0 && (args[0] == "get" || args[0] == "install") {
			return each(ChangeInstalled, packages(args[1:], nil))
		}
	case "pip", "pip3":
		return pipChanges(args)
	case "python", "python3":
		if len(args) >= 2 && args[0] == "-m" && (args[1] == "pip" || args[1] == "pip3") {
			return pipChanges(args[2:])
		}
	case "uv":
		if len(args) > 0 && args[0] == "pip" {
			return pipChanges(args[1:])
		}
		if len(args) > 0 && args[0] == "add" {
			return each(ChangeInstalled, packages(args[1:], nil))
		}
	case "npm", "pnpm":
		if len(args) > 0 && (args[0] == "install" || args[0] == "i" || args[0] == "add") {
			return each(ChangeInstalled, packages(args[1:], set("--registry --prefix")))
		}
	case "yarn", "poetry", "cargo":
		if len(args) > 0 && (args[0] == "add" || args[0] == "install" && name == "cargo") {
			return each(ChangeInstalled, packages(args[1:], set("--registry --version --path --git")))
		}
	case "apt", "apt-get", "brew", "gem", "conda", "dnf", "yum", "apk":
		if len(args) > 0 && (args[0] == "install" || name == "apk" && args[0] == "add") {
			return each(ChangeInstalled, packages(args[1:], set("-c -n --name -p --prefix -t --target-release")))
		}
	}
	return nil
}

// pipChanges handles the arguments after "pip".
func pipChanges(args []string) []StateChange {
	if len(args) == 0 || args[0] != "install" {
		return nil
	}
	return each(ChangeInstalled, packages(args[1:], set(`-r --requirement -c --constraint
		-e --editable -i --index-url --extra-index-url -t --target --prefix
		--root -f --find-links --python`)))
}

// gitChanges handles git mv and git rm.
func gitChanges(args []string) []StateChange {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "mv":
		return moveChanges(args[1:], ChangeMoved)
	case "rm":
		if slices.Contains(args, "--cached") {
			return nil
		}
		return each(ChangeDeleted, operands(args[1:], nil))
	}
	return nil
}

// moveChanges handles mv (op moved) and cp (op created).
func moveChanges(args []string, op ChangeOp) []StateChange {
	var dir string
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "-t" || a == "--target-directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--target-directory="):
			dir = strings.TrimPrefix(a, "--target-directory=")
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			ops = append(ops, a)
		}
	}
	if dir == "" {
		if len(ops) < 2 {
			return nil
		}
		dir = ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		if len(ops) == 1 {
			if op == ChangeMoved {
				return []StateChange{{Op: ChangeMoved, Path: ops[0], To: dir}}
			}
			return []StateChange{{Op: ChangeCreated, Path: dir}}
		}
	}
	var out []StateChange
	for _, src := range ops {
		dst := path.Join(dir, path.Base(src))
		if op == ChangeMoved {
			out = append(out, StateChange{Op: ChangeMoved, Path: src, To: dst})
		} else {
			out = append(out, StateChange{Op: ChangeCreated, Path: dst})
		}
	}
	return out
}

// sedChanges returns the files sed -i edits in place, if it is in-place.
func sedChanges(args []string) []StateChange {
	inPlace, script := false, false
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "--expression" || a == "-f" || a == "--file":
			script = true
			i++
		case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
			script = true
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			inPlace = true
		case a == "-i" || a == "-I":
			inPlace = true
			// BSD sed takes the backup suffix as the next word, often ''.
			if i+1 < len(args) && args[i+1] == "" {
				i++
			}
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags := a[1:]
			if k := strings.IndexAny(flags, "iI"); k >= 0 && strings.Trim(flags[:k], "nErsuz") == "" {
				inPlace = true
			}
		case a == "":
		default:
			files = append(files, a)
		}
	}
	if !inPlace {
		return nil
	}
	if !script && len(files) > 0 {
		files = files[1:] // the first operand is the script
	}
	return each(ChangeModified, files)
}

// operands returns the non-option arguments, skipping the value of each
// option in valued.
func operands(args []string, valued map[string]struct{}) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			if _, ok := valued[a]; ok {
				i++
			}
		case a == "" || strings.Contains(a, "$(") || strings.Contains(a, "`"):
			// Empty, or computed by a command substitution: unknown.
		default:
			out = append(out, a)
		}
	}
	return out
}

// packages returns the package operands of an install command, dropping
// local directories such as "." and requirement files given by option.
func packages(args []string, valued map[string]struct{}) []string {
	var out []string
	for _, a := range operands(args, valued) {
		if a == "." || a == ".." || strings.HasSuffix(a, "/...") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// each makes one change of op per path.
func each(op ChangeOp, paths []string) []StateChange {
	var out []StateChange
	for _, p := range paths {
		out = append(out, StateChange{Op: op, Path: p})
	}
	return out
}
