package sqldb

import (
	"strconv"
	"strings"
	"sync"
)

// The stores write their SQL once, in SQLite's dialect, kept to what
// PostgreSQL understands too (upserts with ON CONFLICT, CASE rather than
// two-argument max and min, "offset" quoted) but for two things, which
// toPostgres translates on the way to the server:
//   - placeholders: ? and ?NNN become $1, $2, … and $NNN;
//   - index hints: "INDEXED BY name" is left out, as PostgreSQL's planner
//     takes no hints.
//
// Text in quotes and comments is copied as it is.

// rewrites caches each query's translation: the engine's queries are a
// few dozen fixed texts, and some built with a number of placeholders.
var rewrites sync.Map

// toPostgres translates query from the stores' SQL to PostgreSQL's.
func toPostgres(query string) string {
	if v, ok := rewrites.Load(query); ok {
		return v.(string)
	}
	out := translate(query)
	rewrites.Store(query, out)
	return out
}

func translate(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := closing(q, i+1, c)
			b.WriteString(q[i:j])
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
			i = j
		case (c == 'I' || c == 'i') && wordStart(q, i) && hasWordFold(q[i:], "INDEXED"):
			// INDEXED BY name: skip it and the blank before it.
			j := skipWord(q, i)              // INDEXED
			j = skipWord(q, skipSpace(q, j)) // BY
			j = skipWord(q, skipSpace(q, j)) // the index's name
			s := b.String()
			b.Reset()
			b.WriteString(strings.TrimRight(s, " \t\n"))
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closing returns the index just past the quote that closes a quoted text
// begun before i; a doubled quote is part of the text.
func closing(q string, i int, quote byte) int {
	for i < len(q) {
		if q[i] == quote {
			if i+1 < len(q) && q[i+1] == quote {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(q)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func wordStart(q string, i int) bool { return i == 0 || !isWordByte(q[i-1]) }

// hasWordFold reports whether s begins with the word w, in any case.
func hasWordFold(s, w string) bool {
	return len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) && (len(s) == len(w) || !isWordByte(s[len(w)]))
}

func skipWord(q string, i int) int {
	for i < len(q) && isWordByte(q[i]) {
		i++
	}
	return i
}

func skipSpace(q string, i int) int {
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
		i++
	}
	return i
}
