package scoring

import (
	"os"
	"strings"
	"testing"
)

// classifyCorpus returns the tokens of the bundled journal, cut as the
// entity scanner cuts them, and tokens chosen for each entity kind.
func classifyCorpus(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../testdata/journals/synth-400.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.FieldsFunc(string(data), func(r rune) bool { return r < 128 && isEntityDelim(byte(r)) })
	for _, set := range []map[string]struct{}{wellKnownFiles, errnoNames, fileExtensions, commonDirs} {
		for k := range set {
			toks = append(toks, k, strings.ToLower(k), strings.ToUpper(k), strings.ToUpper(k[:1])+k[1:])
		}
	}
	return append(toks, "Makefile", "makefile", "Justfile", "ValueError", "Error", "Exception", "localhost",
		"http", "https", "v", "V", "README", "Readme", "the", "The", "a", "I", "x", "ok", "EOF", "Eof")
}

// TestClassifyShortcut checks that plain words are classified as the full
// chain classifies them.
func TestClassifyShortcut(t *testing.T) {
	toks := classifyCorpus(t)
	plain := 0
	for _, raw := range toks {
		tok := trimEntityToken(raw)
		got, gok := classify(tok)
		want, wok := classifyToken(tok)
		if got != want || gok != wok {
			t.Errorf("classify(%q) = %v, %v; the full chain says %v, %v", tok, got, gok, want, wok)
		}
		if plainWord(tok) {
			plain++
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d plain words among %d tokens", plain, len(toks))
	}
}

// TestTrimEntityTokenCutsets checks the byte-set trims against the cutsets
// they replace.
func TestTrimEntityTokenCutsets(t *testing.T) {
	const lead, trail = "([{<'\"`*", ".,;:!?)]}>'\"`*"
	ref := func(tok string) string {
		tok = strings.TrimRight(strings.TrimLeft(tok, lead), trail)
		if t, ok := strings.CutSuffix(tok, "'s"); ok {
			tok = strings.TrimRight(t, trail)
		}
		return tok
	}
	toks := append(classifyCorpus(t), `("src/a.py")`, "`x`.", "**bold**", "it's", "Bob's.", "'s", "((", "", "))", "(é)")
	for _, tok := range toks {
		if got, want := trimEntityToken(tok), ref(tok); got != want {
			t.Errorf("trimEntityToken(%q) = %q, want %q", tok, got, want)
		}
	}
}
