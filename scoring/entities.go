package scoring

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EntityKind names the kind of a recall-worthy name found in text.
type EntityKind string

// The kinds of entity, from most to least specific.
const (
	// EntityURL is an http or https URL.
	EntityURL EntityKind = "url"
	// EntityPath is a file path with at least one directory separator.
	EntityPath EntityKind = "path"
	// EntityHostPort is a host:port pair such as localhost:8080.
	EntityHostPort EntityKind = "hostport"
	// EntityFile is a bare file name with a known extension, or a well-known
	// extensionless name such as Makefile or .gitignore.
	EntityFile EntityKind = "file"
	// EntityIdent is a code identifier (snake_case, SCREAMING_CASE,
	// camelCase, PascalCase with an inner capital, dotted.module.path) or a
	// version string such as v1.7.0.
	EntityIdent EntityKind = "ident"
	// EntityErrorCode is an error code (E1234, ERR_X), an HTTP error status
	// ("HTTP 503"), an errno name (ENOENT) or an exception class name.
	EntityErrorCode EntityKind = "errcode"
	// EntityQuoted is a short quoted name that is none of the above.
	EntityQuoted EntityKind = "quoted"
)

// Entity is one specific name found in text.
type Entity struct {
	// Kind says what sort of name Value is.
	Kind EntityKind
	// Value is the name as written, without surrounding quotes and trailing
	// punctuation. HTTP error statuses are normalised to "HTTP <code>".
	Value string
}

// Entities extracts specific, recall-worthy names from text, deduplicated by
// kind and value, in order of first appearance.
//
// It recognises:
//   - URLs: http:// and https:// up to whitespace, a quote or a bracket.
//   - Paths: tokens with a '/' that start with "/", "./", "../" or "~/", or
//     relative ones that look like paths: three or more segments, a file
//     extension, a trailing slash, a segment with '_', '-', '.' or a digit, or
//     a first segment that is a common directory name (src, lib, tests, ...).
//     "and/or", "I/O" and "read/write" are not paths. A ":line[:col]" suffix is
//     dropped.
//   - Bare file names with a known extension (config.yaml, README.md) and
//     well-known names (Makefile, Dockerfile, .gitignore, .bashrc, .env).
//   - host:port pairs whose host is localhost, an IPv4 address or a dotted
//     host name (db.internal:5432).
//   - Identifiers: snake_case or SCREAMING_CASE with an underscore,
//     camelCase/PascalCase with an inner capital (parseHeader, HTTPClient),
//     dotted module paths whose segments have two or more characters
//     (kestrel.ingest.parser), v-prefixed versions (v1.7.0, v8.20-1c1), and
//     record codes of capitals and digits (ZFA04Y, HAT136), two of each.
//   - Error codes: E1234 (also TS1234, CS1234), ERR_SOMETHING, HTTP error
//     statuses 400-599 after "HTTP", "status" or "status code", errno names
//     (ENOENT, ECONNREFUSED, ...) and exception classes ending in Error or
//     Exception (AssertionError, java.lang.NullPointerException).
//   - Quoted names: `backticked`, "double-quoted" or 'single-quoted' text of
//     2-60 characters without whitespace and with a letter. A quoted text that
//     is itself one of the kinds above is reported as that kind. A
//     double-quoted text directly followed by ':' is a JSON key and is not
//     reported as a quoted name.
//
// Plain English words, sentence-initial capitals, acronyms and bare numbers
// are not entities. Leading brackets and quotes and trailing punctuation
// (.,;:!?)]}'" and markdown '*') are trimmed, as is a possessive "'s". A URL
// is never also reported as a path, and a bare file name is dropped when a
// path with that base name is reported anywhere in the text.
func Entities(text string) []Entity {
	s := entityScanner{text: text}
	s.scan()
	return s.result()
}

// Specificity scores how specific an entity is for recall, in [0,1]:
//
//	kind       score
//	url        1.0
//	path       1.0 (0.95 for a single segment such as /tmp)
//	hostport   0.9
//	file       0.8
//	ident      0.7 for up to 8 runes, rising linearly to 0.8 at 24 runes
//	errcode    0.6
//	quoted     0.5
//	other      0
func Specificity(e Entity) float64 {
	switch e.Kind {
	case EntityURL:
		return 1
	case EntityPath:
		if pathSegments(e.Value) <= 1 {
			return 0.95
		}
		return 1
	case EntityHostPort:
		return 0.9
	case EntityFile:
		return 0.8
	case EntityIdent:
		n := utf8.RuneCountInString(e.Value)
		return 0.7 + 0.1*min(max(float64(n-8)/16, 0), 1)
	case EntityErrorCode:
		return 0.6
	case EntityQuoted:
		return 0.5
	}
	return 0
}

// pathSegments counts the named segments of a path, ignoring ".", ".."
// and "~".
func pathSegments(p string) int {
	n := 0
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".", "..", "~":
		default:
			n++
		}
	}
	return n
}

// entityScanner walks text left to right and collects entities.
type entityScanner struct {
	text string
	out  []Entity
	seen map[Entity]struct{}
	// prev1 and prev2 are the two previous words, for recognising
	// "HTTP 503" and "status code 404".
	prev1, prev2 string
}

// scan fills s.out.
func (s *entityScanner) scan() {
	text := s.text
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '`' || c == '"' || c == '\'':
			if n := s.quoted(i); n > 0 {
				i += n
				continue
			}
			i++
			continue
		case isEntityDelim(c):
			i++
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
				i += size
				continue
			}
		}
		if n := urlLen(text[i:]); n > 0 && (i == 0 || !isAlnumByte(text[i-1])) {
			s.add(EntityURL, text[i:i+n])
			s.word("")
			i += n
			continue
		}
		j := i + 1
		for j < len(text) && !isEntityDelim(text[j]) && text[j] != '`' && text[j] != '"' {
			if text[j] >= utf8.RuneSelf {
				r, _ := utf8.DecodeRuneInString(text[j:])
				if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
					break
				}
			}
			j++
		}
		s.token(text[i:j])
		i = j
	}
}

// quoted handles a quote character at text[i]. When it opens a quoted name
// it records the entity and returns the length consumed, else 0.
func (s *entityScanner) quoted(i int) int {
	text := s.text
	q := text[i]
	if q == '\'' && i > 0 && isAlnumByte(text[i-1]) {
		return 0 // an apostrophe, as in "don't"
	}
	const maxBytes = 60 * utf8.UTFMax
	j := i + 1
	for j < len(text) && text[j] != q && j-i <= maxBytes {
		if isSpaceByte(text[j]) {
			return 0
		}
		j++
	}
	if j >= len(text) || text[j] != q {
		return 0
	}
	content := text[i+1 : j]
	if n := utf8.RuneCountInString(content); n < 2 || n > 60 || !utf8.ValidString(content) {
		return 0
	}
	for _, r := range content {
		if unicode.IsSpace(r) {
			return 0
		}
	}
	if q == '\'' && j+1 < len(text) && isAlnumByte(text[j+1]) {
		return 0
	}
	if e, ok := classify(trimEntityToken(content)); ok {
		s.add(e.Kind, e.Value)
	} else if hasLetter(content) && !(q == '"' && followedByColon(text[j+1:])) {
		s.add(EntityQuoted, content)
	}
	s.word("")
	return j + 1 - i
}

// token classifies one delimited token.
func (s *entityScanner) token(raw string) {
	tok := trimEntityToken(raw)
	if tok == "" {
		s.word("")
		return
	}
	if isStatusCode(tok) {
		is := strings.EqualFold
		switch {
		case is(s.prev1, "http"), is(s.prev1, "status"),
			is(s.prev1, "code") && (is(s.prev2, "status") || is(s.prev2, "http") || is(s.prev2, "response")),
			is(s.prev1, "error") && is(s.prev2, "http"):
			s.add(EntityErrorCode, "HTTP "+tok)
		}
		s.word(tok)
		return
	}
	if e, ok := classify(tok); ok {
		s.add(e.Kind, e.Value)
	} else if strings.IndexByte(tok, ':') >= 0 {
		for piece := range strings.SplitSeq(tok, ":") {
			if e, ok := classify(trimEntityToken(piece)); ok {
				s.add(e.Kind, e.Value)
			}
		}
	}
	if isHTTPVersion(tok) {
		s.word("http")
		return
	}
	s.word(tok)
}

// word records w as the latest word.
func (s *entityScanner) word(w string) {
	s.prev2, s.prev1 = s.prev1, w
}

// add records an entity unless it was seen before.
func (s *entityScanner) add(kind EntityKind, value string) {
	e := Entity{Kind: kind, Value: value}
	if s.seen == nil {
		s.seen = make(map[Entity]struct{})
	}
	if _, ok := s.seen[e]; ok {
		return
	}
	s.seen[e] = struct{}{}
	s.out = append(s.out, e)
}

// result returns the entities, dropping bare file names that are the base
// name of a reported path.
func (s *entityScanner) result() []Entity {
	bases := map[string]struct{}{}
	for _, e := range s.out {
		if e.Kind == EntityPath {
			bases[path.Base(e.Value)] = struct{}{}
		}
	}
	if len(bases) == 0 {
		return s.out
	}
	out := s.out[:0]
	for _, e := range s.out {
		if e.Kind == EntityFile {
			if _, ok := bases[e.Value]; ok {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// isEntityDelim reports whether the ASCII byte b separates tokens. Quotes are
// handled separately; ':' '.' '/' '-' '_' '@' '+' '~' and the apostrophe
// stay inside tokens.
func isEntityDelim(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\f', '\v', '(', ')', '[', ']', '{', '}', '<', '>',
		',', ';', '|', '=', '!', '?', '*', '&', '^', '$', '\\':
		return true
	}
	return b < 0x20 || b == 0x7f
}

// isSpaceByte reports whether b is ASCII white space.
func isSpaceByte(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// followedByColon reports whether s starts with optional spaces and a colon.
func followedByColon(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, ":")
}

// trimEntityToken strips leading brackets and quotes, trailing punctuation
// and a possessive "'s".
func trimEntityToken(tok string) string {
	tok = trimTrail(trimLead(tok))
	if t, ok := strings.CutSuffix(tok, "'s"); ok {
		tok = trimTrail(t)
	}
	return tok
}

// entityLead and entityTrail are the bytes trimEntityToken strips from a
// token's start and end: strings.TrimLeft and TrimRight with a cutset
// build a set on every call, which cost more than the trim.
var entityLead, entityTrail = byteSet("([{<'\"`*"), byteSet(".,;:!?)]}>'\"`*")

func byteSet(chars string) (set [256]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

func trimLead(s string) string {
	i := 0
	for i < len(s) && entityLead[s[i]] {
		i++
	}
	return s[i:]
}

func trimTrail(s string) string {
	j := len(s)
	for j > 0 && entityTrail[s[j-1]] {
		j--
	}
	return s[:j]
}
