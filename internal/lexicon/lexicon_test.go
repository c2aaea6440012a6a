package lexicon

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// TestTableIsSortedAndVersioned: find's binary search needs the lines in
// the order compareKey gives, and Version must change with the table.
func TestTableIsSortedAndVersioned(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if len(lines) < 60000 {
		t.Fatalf("the table has %d lines, want the whole lexicon", len(lines))
	}
	for i := 1; i < len(lines); i++ {
		if compareKey(lines[i-1], key(lines[i])) >= 0 {
			t.Fatalf("line %d (%q) does not sort after line %d (%q)", i+1, lines[i], i, lines[i-1])
		}
	}
	for _, l := range []string{lines[0], lines[len(lines)/2], lines[len(lines)-1]} {
		if _, ok := find(key(l)); !ok {
			t.Errorf("find(%q) misses its line", key(l))
		}
	}
	sum := sha256.Sum256([]byte(data))
	if got := hex.EncodeToString(sum[:])[:12]; got != Version {
		t.Errorf("the table's SHA-256 starts %s, Version says %s: set Version to it (the recall index is rebuilt)", got, Version)
	}
}

// key is a line's part of speech and word.
func key(line string) string {
	f := strings.SplitN(line, "\t", 3)
	return f[0] + "\t" + f[1]
}

// TestBroaderReachesTheCategory checks what recall relies on: a word's
// concepts include the category a question would name, across its
// inflections, and a word that names nothing has none.
func TestBroaderReachesTheCategory(t *testing.T) {
	cases := []struct{ word, category string }{
		{"painting", "art"},
		{"paintings", "art"},
		{"swimming", "sport"},
		{"toddlers", "child"},
		{"mice", "rodent"},
		{"saw", "perceive"}, // the verb see, not to saw wood
	}
	for _, c := range cases {
		cat := Named(nil, c.category)
		if len(cat) == 0 {
			t.Fatalf("%q names no concept", c.category)
		}
		got := Broader(nil, c.word)
		if !slices.Contains(got, cat[0]) {
			t.Errorf("Broader(%q) = %v, want it to hold %q's concept %s", c.word, got, c.category, cat[0])
		}
	}
	if got := Broader(nil, "xqzzv"); len(got) != 0 {
		t.Errorf("a made-up word has concepts: %v", got)
	}
	// Synonyms name one concept.
	if a, b := Named(nil, "kid"), Named(nil, "child"); len(a) == 0 || a[0] != b[0] {
		t.Errorf("kid names %v, child %v: want the same first concept", a, b)
	}
	// Nothing runs past three levels: "swimming" is a sport, not an "entity".
	if slices.Contains(Broader(nil, "swimming"), Named(nil, "entity")[0]) {
		t.Error("swimming reaches entity: the hypernyms go past three levels")
	}
}

func BenchmarkBroader(b *testing.B) {
	b.ReportAllocs()
	words := []string{"swimming", "painted", "children", "xqzzv", "the", "running"}
	var dst []string
	for b.Loop() {
		for _, w := range words {
			dst = Broader(dst[:0], w)
		}
	}
}

// TestPlural: regular and irregular plurals of nouns read as plural; a
// singular noun, a word that only looks plural, and a made-up word do not.
func TestPlural(t *testing.T) {
	for _, w := range []string{"books", "activities", "events", "glasses", "children", "mice", "hobbies", "dogs"} {
		if !Plural(w) {
			t.Errorf("Plural(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"book", "status", "glass", "analysis", "identity", "xqzzvs", "child", "data", "gas", "has", "was", ""} {
		if Plural(w) {
			t.Errorf("Plural(%q) = true, want false", w)
		}
	}
}

// TestPairsNameTheCompound: two words that make a noun name its concept,
// which the members WordNet files under it reach (taekwondo is a martial
// art, Spain a European country), across a plural; words that make no
// noun name nothing as a pair.
func TestPairsNameTheCompound(t *testing.T) {
	for _, c := range []struct{ a, b, member string }{
		{"martial", "arts", "taekwondo"},
		{"european", "countries", "spain"},
		{"ice", "cream", ""},
	} {
		if !StartsPair(c.a) {
			t.Errorf("StartsPair(%q) = false", c.a)
		}
		named, ok := PairNamed(nil, c.a, c.b)
		if !ok || len(named) != 1 {
			t.Fatalf("PairNamed(%q, %q) = %v, %v", c.a, c.b, named, ok)
		}
		broader, ok := PairBroader(nil, c.a, c.b)
		if !ok || broader[0] != named[0] || len(broader) < 2 {
			t.Errorf("PairBroader(%q, %q) = %v, want %s first and the concepts above it", c.a, c.b, broader, named[0])
		}
		if c.member != "" && !slices.Contains(Broader(nil, c.member), named[0]) {
			t.Errorf("%s does not reach %s %s's concept", c.member, c.a, c.b)
		}
		if single := Named(nil, c.b); len(single) > 0 && single[0] == named[0] {
			t.Errorf("%q alone names the compound's concept", c.b)
		}
	}
	for _, p := range [][2]string{{"martial", "law2"}, {"swimming", "pool2"}, {"xqzzv", "art"}, {"", "art"}, {"went", "swimming"}} {
		if got, ok := PairNamed(nil, p[0], p[1]); ok {
			t.Errorf("PairNamed(%q, %q) = %v: not a noun of the table", p[0], p[1], got)
		}
	}
	for _, w := range []string{"xqzzv", "zzzz", "", "aaaaa"} {
		if StartsPair(w) {
			t.Errorf("StartsPair(%q) = true", w)
		}
	}
}

func BenchmarkPair(b *testing.B) {
	b.ReportAllocs()
	pairs := [][2]string{{"martial", "arts"}, {"went", "swimming"}, {"ice", "cream"}, {"the", "kids"}}
	var dst []string
	for b.Loop() {
		for _, p := range pairs {
			dst, _ = PairBroader(dst[:0], p[0], p[1])
		}
	}
}
