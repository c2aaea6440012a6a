// Package lexicon relates English words to the concepts they name and to
// the broader concepts above those: "swimming" names a water sport, which
// is a sport, which is a recreation. A question about "sports" then
// reaches a turn about swimming that shares none of its words.
//
// The data is derived from WordNet 3.0 (Princeton University; see
// WORDNET-LICENSE) by ./gen: for each noun and verb of one word, the
// synset of its commonest sense and up to three levels of hypernyms, and
// for nouns of two words the same (pair.go). Only
// the commonest sense is kept: a word's rarer senses ("kid" as a verb, to
// tease) bring more noise than reach.
package lexicon

import (
	_ "embed"
	"strings"
)

// data is the table ./gen writes, one line per lemma and part of speech,
// in byte order: looked up in place by binary search, so that a process
// that reads a few words pays nothing to load the rest.
//
//go:embed wordnet.txt
var data string

// Version names the table: the first twelve hex digits of its SHA-256
// (a test checks it). Concepts are numbered anew whenever ./gen runs, so
// an index of concepts is only good with the table it was made with, and
// the recall index's schema includes this.
const Version = "5f1c51533684"

// Part of speech, as the table's first column spells it.
const (
	noun = "n"
	verb = "v"
)

// find returns the fields after key of the table's line that starts with
// key and a tab (key is "n\tword", say), if there is one.
func find(key string) ([]string, bool) {
	at := lowerBound(key)
	if at >= len(data) {
		return nil, false
	}
	line := data[at:lineEnd(at)]
	if compareKey(line, key) != 0 {
		return nil, false
	}
	return strings.Split(line[len(key)+1:], "\t"), true
}

// lowerBound returns where the first line of the table whose key is not
// less than key starts (len(data) when there is none), by binary search.
func lowerBound(key string) int {
	lo, hi := 0, len(data) // a line starts at lo; the one sought starts at or after lo, before hi
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(data[lo:mid], '\n') + 1
		end := lineEnd(start)
		if compareKey(data[start:end], key) < 0 {
			lo = end + 1
		} else {
			hi = start
		}
	}
	return lo
}

// lineEnd returns where the line starting at start ends.
func lineEnd(start int) int {
	if end := strings.IndexByte(data[start:], '\n'); end >= 0 {
		return start + end
	}
	return len(data)
}

// compareKey compares a line's key (up to its second tab) with key.
func compareKey(line, key string) int {
	k := line
	if i := strings.IndexByte(line, '\t'); i >= 0 {
		if j := strings.IndexByte(line[i+1:], '\t'); j >= 0 {
			k = line[:i+1+j]
		}
	}
	return strings.Compare(k, key)
}

// detach lists WordNet's rules for a word's lemma, by part of speech: the
// ending to take off and the one to put on.
var detach = map[string][][2]string{
	noun: {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
}

// lookup finds a lower-case word's entry as part of speech pos: an
// irregular form's lemma, the word itself, or the first lemma a detaching
// rule gives. It returns the concept the word names and the concepts
// above it, comma-separated.
func lookup(word, pos string) (own, above string, ok bool) {
	if word == "" || strings.ContainsAny(word, "\t\n") {
		return "", "", false
	}
	if f, ok := find(pos + "!\t" + word); ok && len(f) > 0 {
		return entry(find(pos + "\t" + f[0]))
	}
	if f, ok := find(pos + "\t" + word); ok {
		return entry(f, true)
	}
	for _, r := range detach[pos] {
		if len(word) > len(r[0])+1 && strings.HasSuffix(word, r[0]) {
			if f, ok := find(pos + "\t" + word[:len(word)-len(r[0])] + r[1]); ok {
				return entry(f, true)
			}
		}
	}
	return "", "", false
}

// entry splits a line's fields (find's) into the concept its word names
// and those above it.
func entry(f []string, found bool) (own, above string, ok bool) {
	if !found || len(f) == 0 {
		return "", "", false
	}
	if len(f) > 1 {
		above = f[1]
	}
	return f[0], above, true
}

// Named appends to dst the concepts a lower-case word names: its
// commonest sense as a noun and as a verb. Concepts are short terms
// ("c5m"), the same for every word of a synset.
func Named(dst []string, word string) []string {
	for _, pos := range []string{noun, verb} {
		if own, _, ok := lookup(word, pos); ok {
			dst = append(dst, "c"+own)
		}
	}
	return dst
}

// Broader appends to dst the concepts a lower-case word names (Named) and
// those up to three levels above them: what a document holding the word is
// about, at several levels of generality.
func Broader(dst []string, word string) []string {
	for _, pos := range []string{noun, verb} {
		own, above, ok := lookup(word, pos)
		if !ok {
			continue
		}
		dst = append(dst, "c"+own)
		for above != "" {
			id, rest, _ := strings.Cut(above, ",")
			dst = append(dst, "c"+id)
			above = rest
		}
	}
	return dst
}

// Plural reports whether a lower-case word reads as a noun's plural: an
// irregular plural WordNet lists that is not a noun of its own
// ("children", "mice", "media"; not "data", which WordNet also lists as a
// noun), or a word ending in s that a noun's plural ending, taken off,
// leaves a noun of three letters or more ("books", "activities",
// "glasses"; not "gas", "has" or "was"). Words such as "does" ("doe")
// pass too: the caller decides where a noun can stand.
func Plural(word string) bool {
	if f, ok := find(noun + "!\t" + word); ok && len(f) > 0 && f[0] != word {
		_, lemma := find(noun + "\t" + word)
		return !lemma
	}
	if !strings.HasSuffix(word, "s") || strings.HasSuffix(word, "ss") || strings.HasSuffix(word, "us") || strings.HasSuffix(word, "is") {
		return false
	}
	for _, r := range detach[noun] {
		if !strings.HasSuffix(r[0], "s") || len(word) <= len(r[0])+1 || !strings.HasSuffix(word, r[0]) {
			continue
		}
		stem := word[:len(word)-len(r[0])] + r[1]
		if _, ok := find(noun + "\t" + stem); ok && len(stem) >= 3 {
			return true
		}
	}
	return false
}
