package recall

import (
	"context"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TestCommonWordsAreNotScored indexes more than commonTerm documents that
// say "harbour" and a few that also say "lighthouse": a query for both
// scores only the rare word, and still finds its documents first; a query
// whose words are all rare, or all common, stays a plain match.
func TestCommonWordsAreNotScored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	var docs []document
	for n := 1; n <= commonTerm+10; n++ {
		text := "the harbour was calm"
		if n%1000 == 0 {
			text = "the lighthouse keeper watched the harbour"
		}
		docs = append(docs, document{id: docID(KindIteration, strconv.Itoa(n), "r"), run: "r", kind: KindIteration, first: n, last: n, text: text})
	}
	if err := ix.put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	q, err := ix.wordsQuery(ctx, "harbour lighthouse", fieldText)
	if err != nil {
		t.Fatal(err)
	}
	dq, ok := q.(*query.DisjunctionQuery)
	if !ok || len(dq.Disjuncts) != 1 {
		t.Fatalf("harbour lighthouse: %T %+v, want a disjunction of the rare word alone", q, q)
	}
	if tq, ok := dq.Disjuncts[0].(*query.TermQuery); !ok || tq.Term != "lighthous" {
		t.Fatalf("the kept word is %+v, want the stem of lighthouse", dq.Disjuncts[0])
	}
	for _, words := range []string{"lighthouse keeper", "harbour calm"} {
		q, err := ix.wordsQuery(ctx, words, fieldText)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := q.(*query.MatchQuery); !ok {
			t.Errorf("%s: %T, want the plain match", words, q)
		}
	}
	hits, err := ix.search(ctx, lookup{run: "r", words: "harbour lighthouse", limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 4 {
		t.Fatalf("%d hits, want the 4 lighthouse documents", len(hits))
	}
	for _, h := range hits {
		if h.First%1000 != 0 {
			t.Errorf("hit %d does not name the lighthouse", h.First)
		}
	}
}
