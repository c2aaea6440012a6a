package recall

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Document fields.
const (
	fieldRun  = "run"
	fieldKind = "kind"
	// fieldFirst and fieldLast are stored only: a hit reads them back.
	// Searches filter on fieldFirstSpan and fieldLastSpan, which hold the
	// same numbers as span terms (see span.go).
	fieldFirst     = "first"
	fieldLast      = "last"
	fieldFirstSpan = "first_span"
	fieldLastSpan  = "last_span"
	fieldLevel     = "level"
	// fieldText is prose and code, analysed as English words: stop words
	// dropped, stems kept, so "retried" finds "retry".
	fieldText = "text"
	// fieldSummary is a block's text, analysed as fieldText. It is a field
	// of its own so that summaries, which repeat a range's salient words,
	// do not lower those words' weight in the iterations' text.
	fieldSummary = "summary"
	// fieldConcepts is an iteration's prose (user messages and thought) as
	// the concepts its words name and those above them (concepts.go).
	fieldConcepts = "concepts"
	// fieldIDs holds entities whole and lower-cased (data/cache_3d5a4.json,
	// retry_budget, v8.20-1c1), for exact matches that word analysis
	// would split apart.
	fieldIDs = "ids"
)

// Document kinds.
const (
	KindIteration = "iteration"
	KindBlock     = "block"
)

// analyzerID makes each line of a field value one lower-cased token (see
// linesTokenizer); analyzerLines, one token as it is.
const (
	analyzerID    = "delta_ids"
	analyzerLines = "delta_lines"
)

// analyzerText analyses prose and code as bleve's English analyzer does
// (possessives dropped, lower case, stop words, Porter stems), over
// wordsTokenizer, which splits words as the unicode tokenizer does, and
// with stemFilter, which gives the same stems faster.
const analyzerText = "delta_en"

// analyzerWords splits and filters words as analyzerText does, but keeps
// them whole, for the lexicon; analyzerConcepts turns them into concepts.
const (
	analyzerWords    = "delta_plain"
	analyzerConcepts = "delta_concepts"
)

// newMapping is the index's mapping: BM25 scoring, a static document
// mapping (nothing indexed by accident), and nothing stored but what a hit
// needs to be located: the text comes back from SQLite, not from the index.
// Every field costs at indexing time, so each is indexed only if a query
// names it and stored only if a hit reads it: the kind and an iteration's
// number are in the document's id, a block's range and level are only read
// back (for block hits alone), and the _all field, which no query names, is
// off.
func newMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	if err := im.AddCustomAnalyzer(analyzerID, map[string]any{
		"type":          custom.Name,
		"tokenizer":     linesTokenizer,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerLines, map[string]any{
		"type":      custom.Name,
		"tokenizer": linesTokenizer,
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerText, map[string]any{
		"type":          custom.Name,
		"tokenizer":     wordsTokenizer,
		"token_filters": []string{en.PossessiveName, lowercase.Name, en.StopName, stemFilter},
	}); err != nil {
		return nil, err
	}
	for name, filters := range map[string][]string{
		analyzerWords:    {en.PossessiveName, lowercase.Name, en.StopName},
		analyzerConcepts: {en.PossessiveName, lowercase.Name, en.StopName, conceptFilter},
	} {
		if err := im.AddCustomAnalyzer(name, map[string]any{"type": custom.Name, "tokenizer": wordsTokenizer, "token_filters": filters}); err != nil {
			return nil, err
		}
	}
	doc := bleve.NewDocumentStaticMapping()
	kw := func(index, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = keyword.Name
		f.Index = index
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	num := func() *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Index = false
		f.Store = true
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	text := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc.AddFieldMappingsAt(fieldRun, kw(true, false))
	doc.AddFieldMappingsAt(fieldKind, kw(true, false))
	doc.AddFieldMappingsAt(fieldFirst, num())
	doc.AddFieldMappingsAt(fieldLast, num())
	doc.AddFieldMappingsAt(fieldFirstSpan, text(analyzerLines))
	doc.AddFieldMappingsAt(fieldLastSpan, text(analyzerLines))
	doc.AddFieldMappingsAt(fieldLevel, num())
	doc.AddFieldMappingsAt(fieldText, text(analyzerText))
	doc.AddFieldMappingsAt(fieldSummary, text(analyzerText))
	doc.AddFieldMappingsAt(fieldConcepts, text(analyzerConcepts))
	doc.AddFieldMappingsAt(fieldIDs, text(analyzerID))
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = doc
	im.DefaultAnalyzer = en.AnalyzerName
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im, nil
}
