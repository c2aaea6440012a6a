package recall

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// stemCorpus returns the words of the bundled journal, lower-cased, and
// words chosen for the stemmer's rules and for the cases stemmable skips.
func stemCorpus(t *testing.T) [][]byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/journals/synth-400.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var words [][]byte
	for _, tok := range (wordTokenizer{general: unicode.NewUnicodeTokenizer()}).Tokenize(bytes.ToLower(data)) {
		words = append(words, tok.Term)
	}
	for _, w := range []string{"retried", "retrying", "caresses", "ponies", "hopping", "filing", "relational",
		"generalization", "controll", "agreed", "happy", "sky", "ab", "a", "is", "v8", "items2", "3ds", "v2ing",
		"ünïcödé", "naïvety", "résumés", "日本語", "x86_64", "0x1f"} {
		words = append(words, []byte(w))
	}
	return words
}

// TestStemmerMatchesPorter checks that the remembering stemmer gives the
// stems bleve's Porter filter gives, first and remembered, from several
// goroutines at once, and with the memory emptied as it fills.
func TestStemmerMatchesPorter(t *testing.T) {
	words := stemCorpus(t)
	want := make([]string, len(words))
	ref := porter.NewPorterStemmer()
	for i, w := range words {
		ts := ref.Filter(analysis.TokenStream{{Term: bytes.Clone(w)}})
		want[i] = string(ts[0].Term)
	}
	s := &stemmer{stems: map[string][]byte{}}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pass := range 2 {
				for i := range words {
					j := (i + g*len(words)/4) % len(words)
					ts := s.Filter(analysis.TokenStream{{Term: bytes.Clone(words[j])}})
					if got := string(ts[0].Term); got != want[j] {
						select {
						case errs <- "pass " + string(rune('0'+pass)) + ": " + string(words[j]) + " -> " + got + ", want " + want[j]:
						default:
						}
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if len(words) < 1000 {
		t.Fatalf("only %d words in the corpus", len(words))
	}
}

// TestStemmerMemoryIsBounded fills the memory past its bound.
func TestStemmerMemoryIsBounded(t *testing.T) {
	s := &stemmer{stems: map[string][]byte{}}
	for i := range stemCacheSize + 10 {
		w := []byte("w" + string(rune('a'+i%26)) + string(rune('a'+(i/26)%26)) + string(rune('a'+(i/676)%26)) + string(rune('a'+(i/17576)%26)) + "ing")
		s.Filter(analysis.TokenStream{{Term: w}})
	}
	if n := len(s.stems); n == 0 || n > stemCacheSize {
		t.Errorf("%d words remembered, bound %d", n, stemCacheSize)
	}
}
