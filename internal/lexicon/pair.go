package lexicon

import "strings"

// Two-word nouns. A question about "martial arts" or "European countries"
// means the compound: WordNet files taekwondo under martial art and Spain
// under European country, while "art" alone is painting and music. The
// table holds WordNet's nouns of two words as one lemma joined by an
// underscore ("n\tmartial_art"); Pair looks two adjacent words up as one.

// StartsPair reports whether some two-word noun starts with the
// lower-case word a: one binary search for the first line at or after
// "n\ta_". Most of a text's pairs are not nouns, and this spares them the
// lookups of a plural's lemmas.
func StartsPair(a string) bool {
	if a == "" {
		return false
	}
	prefix := noun + "\t" + a + "_"
	at := lowerBound(prefix)
	return at < len(data) && strings.HasPrefix(data[at:], prefix)
}

// pairLookup finds the two-word noun "a b" (its last word may be a
// plural: "martial arts").
func pairLookup(a, b string) (own, above string, ok bool) {
	if a == "" || b == "" || strings.ContainsRune(a+b, '_') || !StartsPair(a) {
		return "", "", false
	}
	return lookup(a+"_"+b, noun)
}

// PairNamed appends to dst the concept the two-word noun "a b" names, and
// reports whether there is one.
func PairNamed(dst []string, a, b string) ([]string, bool) {
	own, _, ok := pairLookup(a, b)
	if !ok {
		return dst, false
	}
	return append(dst, "c"+own), true
}

// PairBroader appends to dst the concepts the two-word noun "a b" names
// and those up to three levels above, as Broader does for a word, and
// reports whether there is one.
func PairBroader(dst []string, a, b string) ([]string, bool) {
	own, above, ok := pairLookup(a, b)
	if !ok {
		return dst, false
	}
	dst = append(dst, "c"+own)
	for above != "" {
		id, rest, _ := strings.Cut(above, ",")
		dst = append(dst, "c"+id)
		above = rest
	}
	return dst, true
}
