package recall

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/delta-memory/delta-memory/internal/lexicon"
)

// The concept signal. A question to memory often names a category ("what
// sports does she like?", "what kind of art?") where the turns that
// answer it name members of it ("I went swimming", "my latest painting"),
// and no word of one is a word of the other. Each iteration's words are
// also indexed as the concepts they name and those up to three levels
// above (internal/lexicon, from WordNet): "swimming" as swimming, water
// sport, sport and recreation. A question's words are looked up as the
// concepts they name, and the BM25 ranking of that search is added to the
// word ranking at Config.Concepts of its weight, each scaled by its best
// score. BM25 weighs a concept by how rare it is in the run, so "sport"
// counts where few turns are about sport, and "act", which nearly every
// verb reaches, counts for little.

// conceptFilter names the token filter that turns words into concepts.
const conceptFilter = "delta_concepts"

// conceptCacheSize bounds the words whose concepts a filter remembers.
const conceptCacheSize = 1 << 16

func init() {
	registry.RegisterTokenFilter(conceptFilter, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return &conceptualizer{known: map[string][]string{}}, nil
	})
}

// conceptualizer is the token filter named conceptFilter. bleve's analysis
// workers share one, so its memory is locked.
type conceptualizer struct {
	mu    sync.RWMutex
	known map[string][]string
}

// Filter replaces each word by the concepts it names and those above
// them, at the word's position; a word that names none is dropped. Two
// adjacent words that make a noun together ("martial arts", "ice cream")
// are replaced by the noun's concepts alone, at the first one's position:
// the compound is what the text is about, and its words' own concepts
// (art, frozen water) would say something else.
func (c *conceptualizer) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input))
	emit := func(tok *analysis.Token, concepts []string) {
		for _, concept := range concepts {
			out = append(out, &analysis.Token{Term: []byte(concept), Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type})
		}
	}
	for i := 0; i < len(input); i++ {
		tok := input[i]
		if i+1 < len(input) && input[i+1].Position == tok.Position+1 {
			if cs := c.pair(tok.Term, input[i+1].Term); len(cs) > 0 {
				emit(tok, cs)
				i++
				continue
			}
		}
		emit(tok, c.broader(tok.Term))
	}
	return out
}

func (c *conceptualizer) broader(term []byte) []string {
	return c.remember(string(term), func() []string { return lexicon.Broader(nil, string(term)) })
}

// pair returns the concepts of the two-word noun a b, none when the words
// make none. Only a pair whose first word starts a noun of two is looked
// up (and remembered).
func (c *conceptualizer) pair(a, b []byte) []string {
	if !lexicon.StartsPair(string(a)) {
		return nil
	}
	key := string(a) + "_" + string(b)
	return c.remember(key, func() []string {
		cs, _ := lexicon.PairBroader(nil, string(a), string(b))
		return cs
	})
}

// remember returns what look gives for key, from memory when it was
// asked before.
func (c *conceptualizer) remember(key string, look func() []string) []string {
	c.mu.RLock()
	cs, ok := c.known[key]
	c.mu.RUnlock()
	if ok {
		return cs
	}
	cs = look()
	c.mu.Lock()
	if len(c.known) >= conceptCacheSize {
		c.known = make(map[string][]string, conceptCacheSize/4)
	}
	c.known[key] = cs
	c.mu.Unlock()
	return cs
}

// commonConcept is the share of the index's documents past which a
// concept says too little of any to search for (and costs the most to
// score), as secondhop.go's rule for words: the count is the index's,
// blocks (which hold no concepts) included.
const commonConcept = 10

// conceptQuery is the query for the concepts a question's words name, less
// those held by more than a tenth of the index's documents, or by more than
// commonTerm (on a long run, scoring them is what a search spends its time
// on); nil when none is left.
func (ix *index) conceptQuery(ctx context.Context, words string) (query.Query, error) {
	an := ix.bi.Mapping().AnalyzerNamed(analyzerWords)
	if an == nil {
		return nil, nil
	}
	var named []string
	toks := an.Analyze([]byte(words))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		// As the index reads a text (conceptualizer.Filter): two adjacent
		// words that make a noun name its concept, not their own.
		cs := lexicon.Named(nil, string(t.Term))
		if i+1 < len(toks) && toks[i+1].Position == t.Position+1 {
			if pc, ok := lexicon.PairNamed(nil, string(t.Term), string(toks[i+1].Term)); ok {
				cs = pc
				i++
			}
		}
		for _, c := range cs {
			if !slices.Contains(named, c) {
				named = append(named, c)
			}
		}
	}
	if len(named) == 0 {
		return nil, nil
	}
	total, dfs, err := ix.docFreqs(ctx, fieldConcepts, named)
	if err != nil {
		return nil, err
	}
	var keep []query.Query
	for _, c := range named {
		if df := dfs[c]; df > 0 && df*commonConcept <= total && df <= commonTerm {
			tq := bleve.NewTermQuery(c)
			tq.SetField(fieldConcepts)
			keep = append(keep, tq)
		}
	}
	if len(keep) == 0 {
		return nil, nil
	}
	return bleve.NewDisjunctionQuery(keep...), nil
}

// addConcepts adds the concept ranking of a question in words to hits, the
// word ranking: each hit scores its word score over the best word score,
// plus weight times its concept score over the best concept score; a hit
// of the concepts alone joins with that part only. It returns hits as they
// were when the question names no concept worth a search.
func (ix *index) addConcepts(ctx context.Context, l lookup, hits []Hit, weight float64) ([]Hit, error) {
	if weight <= 0 || l.words == "" {
		return hits, nil
	}
	cq, err := ix.conceptQuery(ctx, l.words)
	if err != nil || cq == nil {
		return hits, err
	}
	// As many concept hits as a recall takes (the word search asked for
	// more, to allow for overlaps): the concept part of a score is at most
	// weight, so hits further down its ranking rarely rise, and each costs
	// scoring and sorting.
	cl := l
	cl.words, cl.ids, cl.concepts = "", nil, cq
	cl.limit = max(1, cmp.Or(l.follow, l.limit/retrieveDepth))
	more, err := ix.search(ctx, cl)
	if err != nil || len(more) == 0 {
		return hits, err
	}
	top := 0.0
	if len(hits) > 0 && hits[0].Score > 0 {
		top = hits[0].Score
	}
	at := make(map[hitKey]int, len(hits))
	out := make([]Hit, 0, len(hits)+len(more))
	for _, h := range hits {
		at[keyOf(h)] = len(out)
		h.Score /= cmp.Or(top, 1)
		out = append(out, h)
	}
	best := more[0].Score
	if best <= 0 {
		return hits, nil
	}
	for _, h := range more {
		s := weight * h.Score / best
		if j, ok := at[keyOf(h)]; ok {
			out[j].Score += s
			continue
		}
		h.Score = s
		out = append(out, h)
	}
	// Back to the scale of the best word score, which the hits' scores
	// keep elsewhere (nearby, the recall store).
	scale := cmp.Or(top, best)
	for i := range out {
		out[i].Score *= scale
	}
	slices.SortStableFunc(out, compareHits)
	if len(out) > l.limit {
		out = out[:l.limit]
	}
	return out, nil
}
