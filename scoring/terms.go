package scoring

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terms splits text into index terms for TF-IDF.
//
// A term is a lower-cased word of at least three letters that is not an
// English stopword or one of the words agents use all the time ("file",
// "let", "now", "check", "run", ...; see stopwords). Identifiers are kept
// whole as one term and also split into their parts: snake_case,
// camelCase/PascalCase, dotted.names, paths such as src/parser/core.py and
// http(s) URLs. A part becomes a term under the same rules as a word; the
// whole identifier is kept when it has a letter and at least one segment of
// two or more characters (so "v1.7.0" is kept but "e.g" and "u.s" are not).
// Words joined only by hyphens ("cache-eviction") are plain compounds: their
// words become terms but the compound does not.
//
// Pure numbers, and hexadecimal strings longer than eight characters that
// contain a digit (commit hashes, UUID parts), are dropped.
//
// Terms are returned in order of appearance with duplicates kept: the result
// is a bag of words for [Keywords], not a set. A whole identifier precedes its
// parts.
func Terms(text string) []string {
	// For ASCII text, lower-case once and slice terms out of the lowered copy:
	// byte offsets agree and each term costs no allocation.
	lower := ""
	if isASCII(text) {
		lower = strings.ToLower(text)
	}
	var out []string
	i := 0
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isTermRune(r) {
			i += size
			continue
		}
		if n := urlLen(text[i:]); n > 0 && (i == 0 || !isAlnumByte(text[i-1])) {
			out = appendToken(out, text, lower, i, i+n, true)
			i += n
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := rune(text[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[j:])
			}
			if !isTermRune(r) {
				break
			}
			j += size
		}
		out = appendToken(out, text, lower, i, j, false)
		i = j
	}
	return out
}

// isTermRune reports whether r can be part of a word or identifier token.
func isTermRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiTermByte[r]
	}
	return isAlnumRune(r)
}

// isAlnumRune reports whether r is a letter, a digit or a combining mark.
func isAlnumRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isAlnumByte(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// asciiTermByte marks the ASCII bytes that can be part of a term token.
var asciiTermByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isAlnumByte(byte(c)) || strings.IndexByte("_./-~", byte(c)) >= 0
	}
	return t
}()

// urlLen returns the length of the http(s) URL at the start of s, without
// trailing punctuation, or 0 when s does not start with one.
func urlLen(s string) int {
	var rest int
	switch {
	case hasPrefixFold(s, "https://"):
		rest = len("https://")
	case hasPrefixFold(s, "http://"):
		rest = len("http://")
	default:
		return 0
	}
	n := rest
	for n < len(s) && !isURLStop(s[n]) {
		n++
	}
	n = rest + len(strings.TrimRight(s[rest:n], urlTrailing))
	if n == rest {
		return 0
	}
	return n
}

// urlTrailing is punctuation that ends a sentence rather than a URL.
const urlTrailing = ".,;:!?)]}'\"*"

// isURLStop reports whether b cannot occur in a URL written in prose.
func isURLStop(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', '<', '>', '(', '{', '}', '|', '\\', '^':
		return true
	}
	return b < 0x20 || b == 0x7f
}

// appendToken appends the terms of text[start:end] to out. lower is the
// lower-cased text when it is ASCII, else "".
func appendToken(out []string, text, lower string, start, end int, isURL bool) []string {
	if !isURL {
		// Trailing separators end a sentence or a directory name; leading
		// hyphens are option dashes. Leading dots, slashes and tildes are kept
		// because they are part of paths and dotfiles.
		for end > start && strings.IndexByte(".-/_~", text[end-1]) >= 0 {
			end--
		}
		for start < end && text[start] == '-' {
			start++
		}
		if start == end {
			return out
		}
	}
	tok := text[start:end]
	low := func(a, b int) string {
		if lower != "" {
			return lower[start+a : start+b]
		}
		return strings.ToLower(tok[a:b])
	}
	if !isURL && !strings.ContainsAny(tok, "_./~") && !hasInnerCapital(tok) {
		// A plain word, or words joined by hyphens.
		a := 0
		for a < len(tok) {
			b := strings.IndexByte(tok[a:], '-')
			if b < 0 {
				b = len(tok)
			} else {
				b += a
			}
			if b > a {
				if w := low(a, b); keepWord(w) {
					out = append(out, w)
				}
			}
			a = b + 1
		}
		return out
	}
	if keepWhole(tok) {
		out = append(out, low(0, len(tok)))
	}
	// Parts: alphanumeric segments, each split at camelCase boundaries.
	forEachSegment(tok, func(a, b int) {
		forEachCamelPart(tok[a:b], func(c, d int) {
			if w := low(a+c, a+d); keepWord(w) {
				out = append(out, w)
			}
		})
	})
	return out
}

// forEachSegment calls f with the bounds of each maximal run of letters and
// digits in s.
func forEachSegment(s string, f func(a, b int)) {
	a := -1
	for i, r := range s {
		alnum := isAlnumRune(r)
		switch {
		case alnum && a < 0:
			a = i
		case !alnum && a >= 0:
			f(a, i)
			a = -1
		}
	}
	if a >= 0 {
		f(a, len(s))
	}
}

// forEachCamelPart calls f with the bounds of each camelCase part of the
// alphanumeric segment s: a boundary falls before an upper-case letter that
// follows a lower-case letter or digit ("parse|Header", "utf8|Decode"), and
// before the last capital of a run that is followed by a lower-case letter
// ("HTTP|Client").
func forEachCamelPart(s string, f func(a, b int)) {
	start := 0
	var prev, prevPrev rune
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			f(start, i)
			start = i
		} else if i > 0 && unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prevPrev) {
			p := i - utf8.RuneLen(prev)
			if p > start {
				f(start, p)
				start = p
			}
		}
		prevPrev, prev = prev, r
	}
	f(start, len(s))
}

// hasInnerCapital reports whether s has a camelCase boundary: a lower-case
// letter followed by an upper-case one ("parseHeader"), or a run of capitals
// followed by at least two lower-case letters ("HTTPClient", but not "URLs").
func hasInnerCapital(s string) bool {
	var prev rune
	upperRun := 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			if unicode.IsLower(prev) {
				return true
			}
			upperRun++
		case unicode.IsLower(r):
			if upperRun >= 2 {
				next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
				if unicode.IsLower(next) {
					return true
				}
			}
			upperRun = 0
		default:
			upperRun = 0
		}
		prev = r
	}
	return false
}

// keepWhole reports whether an identifier token is worth a whole term: it
// has a segment of two or more characters that starts with a letter ("v1" in
// "v1.7.0", but not "00s" in "0.00s"), it is not a long hex hash, and not all
// of its segments are stopwords or one- and two-letter words ("and/or").
func keepWhole(tok string) bool {
	named, meaningful := false, false
	forEachSegment(tok, func(a, b int) {
		seg := tok[a:b]
		first, _ := utf8.DecodeRuneInString(seg)
		if !unicode.IsLetter(first) {
			meaningful = true // digits carry meaning: "v1.7.0", "cache_3d5a4"
			return
		}
		if utf8.RuneCountInString(seg) >= 2 {
			named = true
		}
		if !isLetters(seg) || utf8.RuneCountInString(seg) > 2 && !isStopword(strings.ToLower(seg)) {
			meaningful = true
		}
	})
	return named && meaningful && !isHexHash(tok)
}

// isLetters reports whether s is made of letters only.
func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// keepWord reports whether a lower-cased word is a term: at least three
// letters, not a stopword, not a hex hash.
func keepWord(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3 && !isHexHash(w) && !isStopword(w)
}

// isHexHash reports whether s looks like a hash: more than eight hex digits,
// at least one of them a decimal digit.
func isHexHash(s string) bool {
	if len(s) <= 8 {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return digit
}

// IsStopword reports whether w, in any case, is one of the words Terms
// leaves out as carrying no topic: an English function word, or a word
// agents and tools use in almost every step ("file", "run", "output").
func IsStopword(w string) bool { return isStopword(strings.ToLower(w)) }

// isStopword reports whether the lower-cased word w carries no topic.
func isStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// stopwords are English function words and the words that agents and tools
// use in almost every step, which therefore say nothing about the topic. Only
// words of three or more letters are listed: shorter ones are never terms.
var stopwords = func() map[string]struct{} {
	words := strings.Fields(`
		the and for are but not you all any can had her was one our out has him
		his how its may she too who did get got let put say see use way yes yet
		also been both does each from have here into just like more most much
		must only over same some such than that them then there these they this
		those very were what when where which while will with would your about
		above after again against because before being below between could doing
		down during few further having itself myself once other ought own should
		their theirs themselves through under until upon whom why within without
		yours ours off per via onto etc
		don doesn didn isn wasn won couldn shouldn wouldn aren hasn haven
		hadn weren ain
		file files let lets now will need needs needed check checking checked run
		runs running ran use using used look looking looks see seems seem try
		trying tried going want wants okay sure make making made think thing
		things something anything maybe might actually already still done next
		first then again good great well work works working find found show shows
		command commands output result results tool tools call calls content
		contents line lines true false null none nil new
		another following follow know right give take current currently
		probably instead able since else even ever every many time
		com org www http https
	`)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// isASCII reports whether s is pure ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isAlnumByte reports whether b is an ASCII letter or digit.
func isAlnumByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
