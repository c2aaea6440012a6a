package recall

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// commonTerm is the number of documents past which a query word is too
// common to score: on a long run, "src" or "test" match tens of thousands
// of documents, and scoring each is what a search spends its time on,
// while the rarer words of the query decide the ranking. Below it, in
// runs of a few thousand iterations, no word is cut and the query is the
// plain match it would be otherwise.
const commonTerm = 4096

// wordsQuery is the query for free text in field f: a match of its
// analysed words, less those that match more than commonTerm documents,
// unless every word does.
func (ix *index) wordsQuery(ctx context.Context, words, f string) (query.Query, error) {
	mq := bleve.NewMatchQuery(words)
	mq.SetField(f)
	an := ix.bi.Mapping().AnalyzerNamed(analyzerText)
	if an == nil {
		return mq, nil
	}
	var terms []string
	seen := map[string]bool{}
	for _, t := range an.Analyze([]byte(words)) {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			terms = append(terms, s)
		}
	}
	if len(terms) < 2 {
		return mq, nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("read recall index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("read recall index: %w", err)
	}
	defer r.Close()
	var keep []query.Query
	for _, t := range terms {
		tfr, err := r.TermFieldReader(ctx, []byte(t), f, false, false, false)
		if err != nil {
			return nil, fmt.Errorf("read recall index: %w", err)
		}
		n := tfr.Count()
		tfr.Close()
		if n <= commonTerm {
			tq := bleve.NewTermQuery(t)
			tq.SetField(f)
			keep = append(keep, tq)
		}
	}
	if len(keep) == 0 || len(keep) == len(terms) {
		return mq, nil
	}
	return bleve.NewDisjunctionQuery(keep...), nil
}
