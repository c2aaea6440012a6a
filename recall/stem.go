package recall

import (
	"bytes"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/go-porterstemmer"
)

// stemFilter names the text analyzer's last token filter: Porter stems, as
// bleve's stemmer_porter gives them, remembered per word. Stemming each
// word anew was a tenth of the cost of indexing, and a run's text repeats
// the same words over and over.
const stemFilter = "delta_porter"

// stemCacheSize bounds the remembered words; the memory is emptied when it
// is full (tool outputs hold many words seen once: ids, hashes).
const stemCacheSize = 1 << 16

func init() {
	registry.RegisterTokenFilter(stemFilter, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return &stemmer{stems: map[string][]byte{}}, nil
	})
}

// stemmer is the token filter named stemFilter. bleve's analysis workers
// share one, so its memory is locked.
type stemmer struct {
	mu    sync.RWMutex
	stems map[string][]byte
}

// Filter replaces each token's term by its stem. A term's stem is shared
// by every token of that word: terms are not written to after analysis.
func (s *stemmer) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		if tok.KeyWord || !stemmable(tok.Term) {
			continue
		}
		s.mu.RLock()
		stem, ok := s.stems[string(tok.Term)]
		s.mu.RUnlock()
		if !ok {
			stem = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(tok.Term)))
			s.mu.Lock()
			if len(s.stems) >= stemCacheSize {
				s.stems = make(map[string][]byte, stemCacheSize/4)
			}
			s.stems[string(tok.Term)] = stem
			s.mu.Unlock()
		}
		tok.Term = stem
	}
	return input
}

// stemmable reports whether the Porter stemmer can change term: it leaves
// words of two letters or fewer alone, and each of its rules removes or
// replaces a suffix of letters, so a term ending in a digit stays as it is.
func stemmable(term []byte) bool {
	if len(term) <= 2 {
		return false
	}
	last := term[len(term)-1]
	return last < '0' || last > '9'
}
