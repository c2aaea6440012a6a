package recall

import (
	"context"
	"regexp"
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
// one turn in six of the conversations. So a question that asks when is searched a second
// time among the iterations whose text says a relative time, and both
// rankings are fused as the time cues' are (fuseDated): a turn that
// matches the question and says when rises as far as its match is worth.
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

// byWhen ranks hits a second time when the question asks when
// (asksWhen): the same search, kept to the iterations that say a time,
// fused with the first by reciprocal rank, each hit of the second weighed
// by its score against the first's best (fuseDated). It returns hits
// unchanged when the question does not ask when, the time cues are off
// (Config.Dates), or no iteration that says a time matches.
func (r *Recaller) byWhen(ctx context.Context, ix *index, l lookup, hits []Hit) ([]Hit, error) {
	if r.cfg.Dates <= 0 || len(hits) == 0 || !asksWhen(l.words) {
		return hits, nil
	}
	says := ix.saysWhenQuery()
	if says == nil {
		return hits, nil
	}
	wl := l
	wl.concepts, wl.kind, wl.filter = nil, KindIteration, says
	said, err := ix.search(ctx, wl)
	if err != nil || len(said) == 0 {
		return hits, err
	}
	return fuseDated(hits, said), nil
}
