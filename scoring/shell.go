package scoring

import (
	"encoding/json"
	"path"
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
