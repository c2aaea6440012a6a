package scoring

import "strings"

// o200kPiece returns the end of the o200k_base piece that starts at s[i],
// or -1 if no alternative of the split pattern matches there.
func o200kPiece(s string, i int) int {
	c, n := classAt(s, i)
	starts := []int{i + n, i} // with the optional prefix rune, then without
	if c&cPrefix == 0 {
		starts = starts[1:]
	}
	for _, q := range starts { // [^\r\n\p{L}\p{N}]?[Upper]*[Lower]+'s?
		if end := lowerWord(s, q); end >= 0 {
			return contraction(s, end)
		}
	}
	for _, q := range starts { // [^\r\n\p{L}\p{N}]?[Upper]+[Lower]*'s?
		if end := spanClass(s, q, cUpper); end > q {
			return contraction(s, spanClass(s, end, cLower))
		}
	}
	return otherPiece(s, i, c, true)
}

// cl100kPiece returns the end of the cl100k_base piece that starts at s[i],
// or -1 if no alternative of the split pattern matches there.
func cl100kPiece(s string, i int) int {
	if end := contraction(s, i); end > i {
		return end
	}
	c, n := classAt(s, i)
	if c&cPrefix != 0 { // [^\r\n\p{L}\p{N}]?\p{L}+ with the prefix rune
		if end := spanClass(s, i+n, cLetter); end > i+n {
			return end
		}
	}
	if end := spanClass(s, i, cLetter); end > i {
		return end
	}
	return otherPiece(s, i, c, false)
}

// otherPiece matches the alternatives both patterns end with,
// \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+, at s[i:],
// where the rune at s[i] has class c. If slash is set (o200k_base), '/' is
// in the class after the symbols too. It returns the end of the piece, or -1.
func otherPiece(s string, i int, c uint8, slash bool) int {
	if c&cNumber != 0 {
		return numbers(s, i)
	}
	if end := symbols(s, i, slash); end >= 0 {
		return end
	}
	return spaces(s, i)
}

// lowerWord matches [Upper]*[Lower]+ at s[q:] as a backtracking matcher
// does: the greedy run of upper-class runes gives runes back until a
// lower-class rune follows, then the lower-class run is taken whole. The
// classes overlap, so that rune may lie inside the upper run. It returns the
// end of the match, or -1.
func lowerWord(s string, q int) int {
	from := -1 // the last lower-class rune up to the end of the upper run
	for j := q; j < len(s); {
		c, n := classAt(s, j)
		if c&cLower != 0 {
			from = j
		}
		if c&cUpper == 0 {
			break
		}
		j += n
	}
	if from < 0 {
		return -1
	}
	return spanClass(s, from, cLower)
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[j:], or
// j if there is none. Byte tests suffice: b|0x20 maps only 'X' and 'x' to 'x'.
func contraction(s string, j int) int {
	if j+1 >= len(s) || s[j] != '\'' {
		return j
	}
	switch s[j+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return j + 2
	case 'r', 'v':
		if j+2 < len(s) && s[j+2]|0x20 == 'e' {
			return j + 3
		}
	case 'l':
		if j+2 < len(s) && s[j+2]|0x20 == 'l' {
			return j + 3
		}
	}
	if strings.HasPrefix(s[j+1:], "ſ") {
		return j + 1 + len("ſ")
	}
	return j
}

// numbers matches \p{N}{1,3} at s[i:], where s[i] is a number.
func numbers(s string, i int) int {
	end := i
	for range 3 {
		if end == len(s) {
			break
		}
		c, n := classAt(s, end)
		if c&cNumber == 0 {
			break
		}
		end += n
	}
	return end
}

// symbols matches " ?[^\s\p{L}\p{N}]+[\r\n]*" at s[i:], with '/' also in
// the trailing class if slash is set. It returns the end, or -1.
func symbols(s string, i int, slash bool) int {
	from := i
	if s[from] == ' ' {
		from++
	}
	end := spanClass(s, from, cSymbol)
	if end == from {
		return -1
	}
	for end < len(s) && (s[end] == '\r' || s[end] == '\n' || slash && s[end] == '/') {
		end++
	}
	return end
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at s[i:] and returns the end, or
// -1 if s[i] is not a space. The first alternative ends as tiktoken-go's
// matcher ends it: after the run of line breaks at the first line break.
func spaces(s string, i int) int {
	end, firstBreak, last := i, -1, 0
	for end < len(s) {
		c, n := classAt(s, end)
		if c&cSpace == 0 {
			break
		}
		if c&cBreak != 0 && firstBreak < 0 {
			firstBreak = end
		}
		end, last = end+n, n
	}
	switch {
	case end == i:
		return -1
	case firstBreak >= 0:
		end = firstBreak
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	case end < len(s) && end-last > i: // leave the last space to the next piece
		return end - last
	}
	return end
}
