package scoring

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below cut text into the pieces that byte-pair encoding
// then merges. They reproduce, by hand, how tiktoken-go v0.10.0 runs each
// encoding's split pattern (with the matcher regexp2cg compiled for it):
//
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	            | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Alternatives are tried in order at each position, with backtracking inside
// an alternative; \s is unicode.IsSpace, and (?i:'s) also matches 'ſ (U+017F,
// long s), as case folding has it. That matcher differs from the patterns'
// meaning in OpenAI's tiktoken in two ways, kept here because token counts
// must equal tiktoken-go's:
//   - \s*[\r\n]+ ends after the line breaks that follow the first line break
//     of a whitespace run, not the last one: "\n  \n" is two pieces.
//   - DEL (U+007F) is in none of the classes, so no alternative matches it
//     and it is skipped: it counts as no token and separates pieces.
//
// The text is read as runes, as regexp2 does, so each byte that is not
// valid UTF-8 reads as U+FFFD (see runeText).

// Rune classes, as bits.
const (
	cUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cLetter             // \p{L}
	cNumber             // \p{N}
	cSpace              // \s
	cBreak              // [\r\n]
	cPrefix             // [^\r\n\p{L}\p{N}], without DEL
	cSymbol             // [^\s\p{L}\p{N}], without DEL
)

// asciiClasses holds the class bits of the ASCII runes.
var asciiClasses = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = runeClassSlow(r)
	}
	return t
}()

// runeClassSlow computes the class bits of r from the Unicode tables. The
// general categories are disjoint, so the first that holds decides.
func runeClassSlow(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return cSpace | cBreak
	case r == 0x7f:
		return 0
	case unicode.In(r, unicode.Lo, unicode.Lm):
		return cUpper | cLower | cLetter
	case unicode.Is(unicode.Ll, r):
		return cLower | cLetter
	case unicode.In(r, unicode.Lu, unicode.Lt):
		return cUpper | cLetter
	case unicode.Is(unicode.M, r):
		return cUpper | cLower | cPrefix | cSymbol
	case unicode.Is(unicode.N, r):
		return cNumber
	case unicode.IsSpace(r):
		return cSpace | cPrefix
	}
	return cPrefix | cSymbol
}

// classAt decodes the rune at s[i], which must be in range, and returns its
// class bits and its length in bytes.
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClasses[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClassSlow(r), n
}

// spanClass returns the end of the run of runes from s[i] that all have one
// of the class bits in want.
func spanClass(s string, i int, want uint8) int {
	for i < len(s) {
		c, n := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// runeText returns s with every byte that is not part of valid UTF-8
// replaced by U+FFFD, the text regexp2 matches and returns pieces of.
func runeText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s)) // each invalid byte converts to one utf8.RuneError
}
