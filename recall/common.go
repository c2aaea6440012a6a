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
	_, dfs, err := ix.docFreqs(ctx, f, terms)
	if err != nil {
		return nil, err
	}
	var keep []query.Query
	for _, t := range terms {
		if dfs[t] <= commonTerm {
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

// docFreqs counts the documents holding each word in field f, and the
// documents of the index.
func (ix *index) docFreqs(ctx context.Context, f string, words []string) (int, map[string]int, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return 0, nil, fmt.Errorf("read recall index: %w", err)
	}
	rd, err := adv.Reader()
	if err != nil {
		return 0, nil, fmt.Errorf("read recall index: %w", err)
	}
	defer rd.Close()
	total, err := rd.DocCount()
	if err != nil {
		return 0, nil, fmt.Errorf("read recall index: %w", err)
	}
	out := make(map[string]int, len(words))
	for _, w := range words {
		tfr, err := rd.TermFieldReader(ctx, []byte(w), f, false, false, false)
		if err != nil {
			return 0, nil, fmt.Errorf("read recall index: %w", err)
		}
		out[w] = int(tfr.Count())
		tfr.Close()
	}
	return int(total), out, nil
}
