package journal

// A single-pass validating JSON scanner for journal lines.
//
// Importing a journal spends most of its time in encoding/json, which first
// validates a whole line (checkValid) and then decodes it, and the importer
// decodes each line twice (envelope, then payload). scanObject and scanArray
// validate a line in one pass without allocating and hand back raw byte spans
// of the members, so a caller can pick out the few fields it needs and decode
// only those.
//
// The accepted language is exactly encoding/json's (RFC 8259 plus its
// tolerance of invalid UTF-8 inside strings and its nesting limit), and for
// invalid input the error message and offset are the ones json.Unmarshal
// reports, so replacing encoding/json with the scanner changes neither which
// lines are rejected nor what the user is told about them. The fuzz tests in
// jsonscan_test.go check both claims against encoding/json.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanMaxDepth is encoding/json's nesting limit: the 10001st unclosed '{' or
// '[' is an error. Keeping the same limit keeps the same accept set, and it
// also bounds the scanner's recursion (a few MB of goroutine stack at worst).
const scanMaxDepth = 10000

// JSON value kinds, as returned by kindOf. They are the first byte of a value
// of that kind, except that both booleans are kindBool.
const (
	kindObject byte = '{'
	kindArray  byte = '['
	kindString byte = '"'
	kindBool   byte = 't'
	kindNull   byte = 'n'
	kindNumber byte = '0'
)

// scanError describes invalid JSON. Its message and Offset are the ones
// encoding/json's SyntaxError would carry for the same input ("invalid
// character 'x' looking for beginning of value", "unexpected end of JSON
// input"); Offset counts the bytes read up to and including the one in error.
// It is also returned, with a message of its own, when the input is valid
// JSON of the wrong kind (an array given to scanObject, say).
type scanError struct {
	msg    string
	Offset int64
}

func (e *scanError) Error() string { return e.msg }

// scanObject checks that data is exactly one JSON object, optionally
// surrounded by JSON whitespace, accepting exactly what json.Valid accepts
// for an object. For each top-level member, in order, it calls fn with the
// raw key bytes (between the quotes, still escaped) and the exact raw bytes
// of the value (no surrounding whitespace); duplicate keys are all reported.
// If fn returns an error, scanning stops and that error is returned. Invalid
// JSON yields a *scanError.
//
// The scan is a single pass, so fn sees the members before the scanner has
// seen the rest of the input: when scanObject fails with a *scanError, fn may
// already have been called for the members before the error. Treat what fn
// collected as valid only once scanObject returns nil. A nil fn just
// validates.
//
// The spans alias data; they are valid as long as data is.
func scanObject(data []byte, fn func(key, value []byte) error) error {
	i := scanSkipSpace(data, 0)
	var (
		end int
		err error
	)
	if i < len(data) && data[i] == '{' {
		end, err = scanObjectBody(data, i+1, 1, fn)
	} else {
		end, err = scanValue(data, i, 0)
	}
	if err != nil {
		return err
	}
	if err := scanTrailer(data, end); err != nil {
		return err
	}
	if data[i] != '{' {
		// Valid JSON, wrong kind. Syntax errors take precedence, as they do
		// in json.Unmarshal, hence the full scan above.
		return &scanError{msg: "cannot scan JSON " + kindName(kindOf(data[i:end])) + " as an object", Offset: int64(i + 1)}
	}
	return nil
}

// scanArray is scanObject for a JSON array: it calls fn with the exact raw
// bytes of each element, in order. The same caveats apply: fn's error stops
// the scan and is returned, and fn may have been called for leading elements
// of an input that turns out to be invalid.
func scanArray(data []byte, fn func(elem []byte) error) error {
	i := scanSkipSpace(data, 0)
	var (
		end int
		err error
	)
	if i < len(data) && data[i] == '[' {
		end, err = scanArrayBody(data, i+1, 1, fn)
	} else {
		end, err = scanValue(data, i, 0)
	}
	if err != nil {
		return err
	}
	if err := scanTrailer(data, end); err != nil {
		return err
	}
	if data[i] != '[' {
		return &scanError{msg: "cannot scan JSON " + kindName(kindOf(data[i:end])) + " as an array", Offset: int64(i + 1)}
	}
	return nil
}

// scanTrailer checks that only whitespace follows the top-level value, which
// ends at data[end].
func scanTrailer(data []byte, end int) error {
	if j := scanSkipSpace(data, end); j < len(data) {
		return scanInvalid(data, j, "after top-level value")
	}
	return nil
}

// scanValue scans the value starting at data[i], where i is past any leading
// whitespace, and returns the index just past it. depth is the number of
// objects and arrays the value is nested in.
//
// The scan functions return error rather than *scanError so that
// scanObjectBody and scanArrayBody can pass fn's errors up the same path;
// the errors they make themselves are all *scanError.
func scanValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return i, scanEOF(data)
	}
	switch c := data[i]; c {
	case '"':
		return scanString(data, i)
	case '{':
		if depth >= scanMaxDepth {
			return i, scanInvalid(data, i, "exceeded max depth")
		}
		return scanObjectBody(data, i+1, depth+1, nil)
	case '[':
		if depth >= scanMaxDepth {
			return i, scanInvalid(data, i, "exceeded max depth")
		}
		return scanArrayBody(data, i+1, depth+1, nil)
	case 't':
		return scanLiteral(data, i, "true")
	case 'f':
		return scanLiteral(data, i, "false")
	case 'n':
		return scanLiteral(data, i, "null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return scanNumber(data, i)
		}
		return i, scanInvalid(data, i, "looking for beginning of value")
	}
}

// scanObjectBody scans an object whose '{' is at data[i-1] and returns the
// index just past its '}'. depth counts the object itself. fn, if not nil, is
// called for each member; nested objects pass nil.
func scanObjectBody(data []byte, i, depth int, fn func(key, value []byte) error) (int, error) {
	i = scanSkipSpace(data, i)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	var err error
	for {
		if i >= len(data) {
			return i, scanEOF(data)
		}
		if data[i] != '"' {
			return i, scanInvalid(data, i, "looking for beginning of object key string")
		}
		keyStart := i + 1
		i, err = scanString(data, i)
		if err != nil {
			return i, err
		}
		keyEnd := i - 1

		i = scanSkipSpace(data, i)
		if i >= len(data) {
			return i, scanEOF(data)
		}
		if data[i] != ':' {
			return i, scanInvalid(data, i, "after object key")
		}
		i = scanSkipSpace(data, i+1)

		valueStart := i
		i, err = scanValue(data, i, depth)
		if err != nil {
			return i, err
		}
		if fn != nil {
			if err := fn(data[keyStart:keyEnd], data[valueStart:i]); err != nil {
				return i, err
			}
		}

		i = scanSkipSpace(data, i)
		if i >= len(data) {
			return i, scanEOF(data)
		}
		switch data[i] {
		case ',':
			i = scanSkipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, scanInvalid(data, i, "after object key:value pair")
		}
	}
}

// scanArrayBody scans an array whose '[' is at data[i-1] and returns the
// index just past its ']'. depth counts the array itself. fn, if not nil, is
// called for each element; nested arrays pass nil.
func scanArrayBody(data []byte, i, depth int, fn func(elem []byte) error) (int, error) {
	i = scanSkipSpace(data, i)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	var err error
	for {
		start := i
		i, err = scanValue(data, i, depth)
		if err != nil {
			return i, err
		}
		if fn != nil {
			if err := fn(data[start:i]); err != nil {
				return i, err
			}
		}

		i = scanSkipSpace(data, i)
		if i >= len(data) {
			return i, scanEOF(data)
		}
		switch data[i] {
		case ',':
			i = scanSkipSpace(data, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, scanInvalid(data, i, "after array element")
		}
	}
}

// scanStringStop marks the bytes that end the fast run through a string:
// the closing quote, a backslash, and the control characters that must be
// escaped. Everything else, including bytes of invalid UTF-8, is taken as is.
var scanStringStop = [256]bool{'"': true, '\\': true}

func init() {
	for c := 0; c < 0x20; c++ {
		scanStringStop[c] = true
	}
}

// scanString scans the string whose opening quote is at data[i] and returns
// the index just past its closing quote.
func scanString(data []byte, i int) (int, error) {
	i++
	for {
		// Strings are most of a journal line (tool output, file contents)
		// and have long runs without escapes, so skip to the next byte
		// that needs a look eight bytes at a time while there are eight,
		// then one at a time. On the committed synthetic journal this is
		// 1.7x faster than a byte loop.
		if i+8 <= len(data) {
			m := stringStopMask(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		} else {
			for i < len(data) && !scanStringStop[data[i]] {
				i++
			}
			if i >= len(data) {
				return i, scanEOF(data)
			}
		}
		switch data[i] {
		case '"':
			return i + 1, nil
		case '\\':
			i++
			if i >= len(data) {
				return i, scanInvalid(data, i, "in string escape code")
			}
			switch data[i] {
			case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k, i = k+1, i+1 {
					if i >= len(data) || !isHexDigit(data[i]) {
						return i, scanInvalid(data, i, `in \u hexadecimal character escape`)
					}
				}
			default:
				return i, scanInvalid(data, i, "in string escape code")
			}
		default: // a control character
			return i, scanInvalid(data, i, "in string literal")
		}
	}
}

// stringStopMask flags, in the high bit of each byte of the little-endian
// word w, the bytes that are in scanStringStop: a quote, a backslash, or
// below 0x20. It is the classic "has a zero byte" test, (x-0x0101..)&^x
// &0x8080.., applied to w XOR quotes, w XOR backslashes, and (as "has a
// byte below 0x20") to w minus 0x2020.. A borrow can raise a false flag,
// but only above a true one, so the lowest flag is exact, and that is all
// scanString uses.
func stringStopMask(w uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w) & highs
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber scans the number starting at data[i] ('-' or a digit) and
// returns the index just past it. Whatever follows the number is left to the
// caller, which is also how encoding/json words the error for "01" or "1x":
// the number ends and the next byte is out of place after a value.
func scanNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, scanInvalid(data, i, "in numeric literal")
		}
	}
	// No leading zeros: a '0' is the whole integer part.
	if data[i] == '0' {
		i++
	} else {
		i = scanDigits(data, i+1)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, scanInvalid(data, i, "after decimal point in numeric literal")
		}
		i = scanDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, scanInvalid(data, i, "in exponent of numeric literal")
		}
		i = scanDigits(data, i+1)
	}
	return i, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanDigits returns the index of the first non-digit at or after data[i].
func scanDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// scanLiteral scans the literal lit (true, false or null) whose first byte is
// at data[i], reporting the first byte that differs as encoding/json does.
func scanLiteral(data []byte, i int, lit string) (int, error) {
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) || data[i+k] != lit[k] {
			return i + k, scanInvalid(data, i+k, "in literal "+lit+" (expecting "+quoteChar(lit[k])+")")
		}
	}
	return i + len(lit), nil
}

// scanSkipSpace returns the index of the first non-whitespace byte at or
// after data[i], or len(data).
func scanSkipSpace(data []byte, i int) int {
	// Journal lines are compact, so test the cheap "not space" case first.
	for i < len(data) && data[i] <= ' ' && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return i
}

// scanEOF is the error for input that ends where more was required but
// whitespace would have been fine.
func scanEOF(data []byte) error {
	return &scanError{msg: "unexpected end of JSON input", Offset: int64(len(data))}
}

// scanInvalid is the error for data[i], which cannot continue the input.
//
// At the end of input (i == len(data)), encoding/json runs its state machine
// on one more virtual ' ', so where a space is not allowed either - inside a
// number, a literal or an escape - it complains about an invalid ' '. The
// callers for which a space would be fine check for the end themselves and
// return scanEOF instead.
func scanInvalid(data []byte, i int, context string) error {
	if i >= len(data) {
		return &scanError{msg: "invalid character ' ' " + context, Offset: int64(len(data))}
	}
	return &scanError{msg: "invalid character " + quoteChar(data[i]) + " " + context, Offset: int64(i + 1)}
}

// quoteChar formats c as a quoted character literal the way encoding/json's
// error messages do (including treating c as a rune, so 0xE9 prints as 'é').
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// kindOf returns the JSON kind of a raw value span by its first byte:
// kindObject, kindArray, kindString, kindBool, kindNull or, for anything
// else, kindNumber. The span is assumed to come from the scanner; an empty
// span returns 0.
func kindOf(span []byte) byte {
	if len(span) == 0 {
		return 0
	}
	switch c := span[0]; c {
	case '{', '[', '"', 'n':
		return c
	case 't', 'f':
		return kindBool
	default:
		return kindNumber
	}
}

// kindName names a kind for error messages, in encoding/json's words.
func kindName(k byte) string {
	switch k {
	case kindObject:
		return "object"
	case kindArray:
		return "array"
	case kindString:
		return "string"
	case kindBool:
		return "bool"
	case kindNull:
		return "null"
	case kindNumber:
		return "number"
	}
	return "nothing"
}

// jsonString decodes a raw JSON string value (the span including its quotes)
// into a Go string, exactly as json.Unmarshal into a string would: escapes
// are decoded, invalid UTF-8 and unpaired surrogates become U+FFFD. A span
// that is not a string is an error.
func jsonString(span []byte) (string, error) {
	if len(span) < 2 || span[0] != '"' || span[len(span)-1] != '"' {
		return "", errors.New("cannot decode JSON " + kindName(kindOf(span)) + " as a string")
	}
	inner := span[1 : len(span)-1]
	ascii := true
	for _, c := range inner {
		if scanStringStop[c] {
			return jsonStringSlow(span)
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	// encoding/json replaces invalid UTF-8 with U+FFFD; leave that to it.
	if !ascii && !utf8.Valid(inner) {
		return jsonStringSlow(span)
	}
	return string(inner), nil
}

// jsonStringSlow decodes a string that needs unescaping or repairing. It is
// rare in journals, so encoding/json, which is right by definition, does it.
func jsonStringSlow(span []byte) (string, error) {
	var s string
	if err := json.Unmarshal(span, &s); err != nil {
		return "", err
	}
	return s, nil
}

// keyIs reports whether a raw object key (as passed to scanObject's fn, still
// escaped) names the field name the way encoding/json matches keys to struct
// fields: an exact match, or else a case-insensitive one under Unicode simple
// folding, which for an ASCII name means ASCII case plus the Kelvin sign (K)
// and long s (ſ) that fold to 'k' and 's'.
func keyIs(rawKey []byte, name string) bool {
	// The common case is plain ASCII on both sides, usually differing in
	// the first byte: compare without allocating, and leave escapes and
	// non-ASCII (rare in keys, never in our field names) to keyIsSlow.
	n := min(len(rawKey), len(name))
	for i := 0; i < n; i++ {
		a, b := rawKey[i], name[i]
		if a >= utf8.RuneSelf || b >= utf8.RuneSelf || a == '\\' {
			return keyIsSlow(rawKey, name)
		}
		if a != b && lowerASCII(a) != lowerASCII(b) {
			return false
		}
	}
	// One is a prefix of the other, so they match only if equally long: the
	// unescaped key can only have more runes than its plain-ASCII prefix.
	return len(rawKey) == len(name)
}

// keyIsSlow is keyIs for a key with escapes or non-ASCII bytes. Like
// encoding/json it unquotes the key first, which also turns invalid UTF-8
// into U+FFFD, and then matches exactly or by strings.EqualFold (the same
// relation as encoding/json's foldName).
func keyIsSlow(rawKey []byte, name string) bool {
	quoted := make([]byte, 0, len(rawKey)+2)
	quoted = append(append(append(quoted, '"'), rawKey...), '"')
	key, err := jsonString(quoted)
	if err != nil {
		return false
	}
	return key == name || strings.EqualFold(key, name)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
