package recall

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// tokenizerSamples sit on the word-boundary rules' edges: joiners between
// letters, digits and neither, underscores, quotes, line ends, and
// non-ASCII letters, marks and punctuation next to ASCII.
var tokenizerSamples = []string{
	"", " ", "a", "_", "__", "'", ".", "a.b", "a..b", "a.", ".a", "a.1", "1.a", "1.5", "1,000", "1;2", "1:2", "a:b", "a;b", "a,b",
	"a'b", "1'2", "don't", "a_.b", "_a.b", "a._b", "a1.2", "1a.b", "a1.b", "1_2", "_1_", "1._", "x'", "'x", "a\"b", "\"quoted\"",
	"src/cache/ttl.py:88", "v8.20-1c1", "e.g. i.e.", "3.14159 2,5 10;20", "CACHE_MAX_ENTRIES=128", "https://例え.jp/パス?q=1&r=2",
	"café naïve résumé", "e\u0301t\u00e9", " \u0301abc", "a\u00adb", "ß/ẞ/İ/ǅ", "עברית \"א\"ב' ש'", "日本語のテキスト カタカナ",
	"x\u2019y", "1\u20182", "a\u00b7b", "…\n", "line\r\nnext\vtab\fend", "\x00nul\x7fdel", "tabs\tand  spaces", "🙂 emoji 🇫🇷 flags",
	"\xff\xfe invalid utf8", "a\xc3", "E   AssertionError: assert 'key_b' == 'key_a'",
}

func generalTokens(in []byte) analysis.TokenStream {
	return unicode.NewUnicodeTokenizer().Tokenize(in)
}

// checkTokenizer fails unless wordTokenizer and the unicode tokenizer give
// the same tokens for in.
func checkTokenizer(t *testing.T, in string) {
	t.Helper()
	got := wordTokenizer{general: unicode.NewUnicodeTokenizer()}.Tokenize([]byte(in))
	want := generalTokens([]byte(in))
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w string
			if i < len(got) {
				g = got[i].String()
			}
			if i < len(want) {
				w = want[i].String()
			}
			if g != w {
				t.Fatalf("Tokenize(%q): token %d is %q, the unicode tokenizer's is %q", in, i, g, w)
			}
		}
		t.Fatalf("Tokenize(%q) differs from the unicode tokenizer", in)
	}
}

func TestWordTokenizerMatchesUnicode(t *testing.T) {
	t.Parallel()
	var inputs []string
	for _, s := range tokenizerSamples {
		inputs = append(inputs, s, "x "+s+" y", s+s, strings.ToUpper(s))
	}
	inputs = append(inputs, strings.Join(tokenizerSamples, " "), strings.Join(tokenizerSamples, ""))
	events, err := synth.Events(synth.Config{Seed: 3, Iterations: 300, MaxOutputBytes: 4000})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		var p journal.ActionResultPayload
		if e.Type == journal.TypeActionResult && json.Unmarshal(e.Payload, &p) == nil {
			inputs = append(inputs, p.ObservationContent)
		}
		var th journal.ThoughtPayload
		if e.Type == journal.TypeThought && json.Unmarshal(e.Payload, &th) == nil {
			inputs = append(inputs, th.Content)
		}
	}
	// Every short string over the characters the rules tell apart, and a
	// few non-ASCII ones, drawn at random with a fixed seed.
	alphabet := []string{"a", "Z", "0", "9", "_", ".", ":", "'", ",", ";", "\"", " ", "\n", "-", "/", "é", "\u0301", "א", "カ", "…"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50_000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		checkTokenizer(t, in)
	}
}

func FuzzWordTokenizer(f *testing.F) {
	for _, s := range tokenizerSamples {
		f.Add(s)
	}
	f.Fuzz(checkTokenizer)
}

// TestTextAnalyzerMatchesEnglish checks that the text field's analyzer
// gives the tokens of bleve's English analyzer, which it replaces.
func TestTextAnalyzerMatchesEnglish(t *testing.T) {
	t.Parallel()
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	ours, english := m.AnalyzerNamed(analyzerText), m.AnalyzerNamed(en.AnalyzerName)
	if ours == nil || english == nil {
		t.Fatal("analyzer missing from the mapping")
	}
	inputs := append([]string{strings.Join(tokenizerSamples, " "), "The agent's retried runs weren't RUNNING: tests_failed, FAILED twice."},
		tokenizerSamples...)
	for _, in := range inputs {
		// Filters may change terms in place: each analyzer gets its copy.
		if got, want := ours.Analyze([]byte(in)), english.Analyze([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Fatalf("Analyze(%q) = %v, the English analyzer gives %v", in, got, want)
		}
	}
}
