package recall

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Questions that ask when. "When did Melanie run a charity race?" names no
// time, so the time cues (timecue.go) have nothing to search by; but the
// turn that answers it must say when, in its own words ("last Saturday",
// "two weeks ago", "yesterday"), or leave it to the date the journal gives
// the turn. On the LoCoMo dev file, 82 of the 96 evidence turns of the 93
// questions that ask when (or how long) say a time in these words, against
// one turn in six of the conversations. So the hits of a question that
// asks when whose text says a relative time are ranked a second time, by
// their word scores, and both rankings are fused as the time cues' are
// (fuseDated): a turn that matches the question and says when rises as far
// as its match is worth.
// Dates and clock times are left out of what says when: a line's own date
// heading ("[D1:3] Caroline (1:56 pm on 8 May, 2023): …") holds them, in
// every turn alike.

// whenWords are the words by which a turn says when something happened or
// will, relative to when it is said. Greetings ("good morning") and words
// with other common senses ("since", "time") are left out.
var whenWords = []string{
	"yesterday", "today", "tonight", "tomorrow", "ago", "last", "next", "recently", "lately", "earlier",
	"weekend", "week", "weeks", "month", "months", "year", "years",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
}

// reAsksWhen matches a question that asks for a time or a span of it:
// "When did…", "What year did…", "Which month…", "How long ago…", "How
// long has…", "Since when…". A span is said in the same words ("for four
// years", "took six months").
var reAsksWhen = regexp.MustCompile(`^\s*when\b|\b(?:what|which)\s+(?:year|month|day|date|time|week|weekend)\b|\bhow\s+long\b|\bsince\s+when\b`)

// asksWhen reports whether question asks when something happened, or for
// how long.
func asksWhen(question string) bool {
	return reAsksWhen.MatchString(strings.ToLower(question))
}

// saysWhenQuery is a filter of the documents whose text says a relative
// time (whenWords), in the terms the text's analyzer makes of them; nil
// when the index has no such analyzer.
func (ix *index) saysWhenQuery() query.Query {
	an := ix.bi.Mapping().AnalyzerNamed(analyzerText)
	if an == nil {
		return nil
	}
	var qs []query.Query
	seen := map[string]bool{}
	for _, w := range whenWords {
		for _, t := range an.Analyze([]byte(w)) {
			if s := string(t.Term); !seen[s] {
				seen[s] = true
				tq := bleve.NewTermQuery(s)
				tq.SetField(fieldText)
				qs = append(qs, tq)
			}
		}
	}
	if len(qs) == 0 {
		return nil
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// byWhen ranks hits a second time when the question asks when: the
// iterations among them that say a time, by their word scores (words, the
// first search's scores by hit, which Each keeps only for a question that
// asks when, asksWhen; nil otherwise), fused with the first by reciprocal
// rank, each hit of the second weighed by its score against the first's
// best (fuseDated). It returns hits unchanged when words is nil or no
// iteration among them says a time.
func (r *Recaller) byWhen(ctx context.Context, ix *index, l lookup, hits []Hit, words map[hitKey]float64) ([]Hit, error) {
	if words == nil || len(hits) == 0 {
		return hits, nil
	}
	says := ix.saysWhenQuery()
	if says == nil {
		return hits, nil
	}
	// The second ranking is the first one's iterations that say a time,
	// by their word scores, as the same words searched again among the
	// iterations that say a time would rank them: that search would read
	// again every document the words match, with a filter that reads tens
	// of thousands on a long run. One look-up of the hits' ids against the
	// time words tells which say one. Only iterations have a text field.
	at := make(map[string]Hit)
	var ids []string
	for _, h := range hits {
		if s, ok := words[keyOf(h)]; ok && h.Kind == KindIteration {
			id := docID(KindIteration, strconv.Itoa(h.First), l.run)
			h.Score = s
			at[id] = h
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return hits, nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), says), len(ids), 0, false)
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search recall index: %w", err)
	}
	if len(res.Hits) == 0 {
		return hits, nil
	}
	said := make([]Hit, 0, len(res.Hits))
	for _, m := range res.Hits {
		if h, ok := at[m.ID]; ok {
			said = append(said, h)
		}
	}
	slices.SortStableFunc(said, compareHits)
	return fuseDated(hits, said), nil
}

// wordScores maps each hit of a word search to its score, before the
// signals fused with it change the scores.
func wordScores(hits []Hit) map[hitKey]float64 {
	m := make(map[hitKey]float64, len(hits))
	for _, h := range hits {
		m[keyOf(h)] = h.Score
	}
	return m
}
