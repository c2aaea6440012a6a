package recall

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/delta-memory/delta-memory/fold"
)

// Hit is one document a search found.
type Hit struct {
	Kind  string
	First int
	Last  int
	Level int
	// Block is the block's id for a block hit.
	Block string
	Score float64
	// Failed is, for a mention hit, whether its iteration failed (the
	// index does not store it).
	Failed bool
	// names is, for a mention hit, how many entities its list holds.
	names int
}

// lookup is one search of a run's documents. A field that changes what
// a search ranks belongs in searchKey too (rounds.go).
type lookup struct {
	run string
	// words is free text, matched against the analysed text (BM25).
	words string
	// ids are entity terms matched whole against the documents' entities,
	// boosted over words.
	ids []string
	// concepts, when set, is a query of fieldConcepts, scored with the
	// others.
	concepts query.Query
	// kind, when set, keeps one kind of document.
	kind string
	// before, when > 0, keeps documents that end before that iteration;
	// from, documents that start at or after it.
	before int
	from   int
	// upTo, when > 0, is the run's newest iteration: none of its
	// documents ends later. It bounds the ranges of before and from,
	// which are otherwise open: a range is a disjunction of the span
	// terms it covers (span.go), each looked up in every segment, and an
	// open one covers every number up to spanTop.
	upTo  int
	limit int
	// follow, when > 0, is how many documents the searches that follow a
	// fill's first (the concepts, the second hop) rank: as many as the
	// recall takes. The first ranks deeper (fillDepth), and the lists
	// fused with it keep its depth. Otherwise they rank limit over
	// retrieveDepth.
	follow int
}

// idBoost weighs an exact entity match over word matches: the user who
// types a path means that path, not documents that say "path" often.
const idBoost = 4

func (ix *index) search(ctx context.Context, l lookup) ([]Hit, error) {
	var should []query.Query
	if l.words != "" {
		for _, f := range []string{fieldText, fieldSummary} {
			wq, err := ix.wordsQuery(ctx, l.words, f)
			if err != nil {
				return nil, err
			}
			should = append(should, wq)
		}
	}
	for _, id := range l.ids {
		tq := bleve.NewTermQuery(id)
		tq.SetField(fieldIDs)
		tq.SetBoost(idBoost)
		should = append(should, tq)
	}
	if l.concepts != nil {
		should = append(should, l.concepts)
	}
	if len(should) == 0 {
		return nil, nil
	}
	bq := bleve.NewBooleanQuery()
	bq.AddShould(should...)
	bq.SetMinShould(1)
	var filters []query.Query
	only, err := ix.runOnly(ctx, l.run)
	if err != nil {
		return nil, err
	}
	if !only {
		run := bleve.NewTermQuery(l.run)
		run.SetField(fieldRun)
		filters = append(filters, run)
	}
	if l.kind != "" {
		k := bleve.NewTermQuery(l.kind)
		k.SetField(fieldKind)
		filters = append(filters, k)
	}
	if l.before > 0 {
		// "not last >= before" rather than a filter "last < before": a
		// range is a disjunction of the spans it covers, and before the
		// newest iteration lie nearly all of a long run's documents, at or
		// after it a handful. Every document has a last, and neither
		// clause scores, so both keep the same hits with the same scores.
		bq.AddMustNot(spanQuery(fieldLastSpan, l.before, l.upTo))
	}
	if l.from > 0 {
		filters = append(filters, spanQuery(fieldFirstSpan, l.from, l.upTo))
	}
	if len(filters) > 0 {
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
	}

	limit := max(l.limit, 1)
	// Ask for more than needed so that near ties at the cut are broken by
	// our own order (compareHits), not by bleve's.
	// No stored fields are asked for: loading them was a quarter of a
	// question's recall, and an iteration's id holds its number. A block's
	// range and level are read for the few block hits (blockFields).
	req := bleve.NewSearchRequestOptions(bq, limit+16, 0, false)
	hits, matched, tied, err := ix.ranked(ctx, req, limit)
	if err == nil && tied && matched <= tieSortMax {
		// Among documents of one score, bleve keeps the first in its
		// internal order, which follows the segments the index merged in
		// the background: the same question over the same state could
		// then recall other turns in another process. Sorting on the id
		// after the score settles which.
		req.SortBy([]string{"-_score", "-_id"})
		hits, _, _, err = ix.ranked(ctx, req, limit)
	}
	return hits, err
}

// tieSortMax bounds the documents a search may match for a tie at its cut
// to be settled by a second search sorted on the id (search), which reads
// every match's id: a conversation's question matches hundreds of turns,
// and the second search costs a millisecond or so; a common word in a run
// of 100,000 iterations matches tens of thousands, where sorting them all
// cost a recall of five hits two to six milliseconds more at the median
// (2.1 / 3.4 -> 8.7 / 5.5 ms). Past it, the tie is cut in the index's
// order.
const tieSortMax = 4096

// ranked runs req and returns its best limit hits in our order
// (compareHits), how many documents matched, and whether the cut fell
// inside a tie: a hit kept scores exactly as the last one req returned,
// and more matched than it returned, so that which of the tied documents
// came back was bleve's choice.
func (ix *index) ranked(ctx context.Context, req *bleve.SearchRequest, limit int) ([]Hit, uint64, bool, error) {
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, false, fmt.Errorf("search recall index: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		kind, key, ok := parseDocID(h.ID)
		if !ok {
			continue
		}
		hit := Hit{Kind: kind, Score: h.Score}
		if kind == KindBlock {
			hit.Block = key
			if hit.First, hit.Last, hit.Level, err = ix.blockFields(h.ID); err != nil {
				return nil, 0, false, err
			}
		} else if n, err := strconv.Atoi(key); err == nil {
			hit.First, hit.Last = n, n
		} else {
			continue
		}
		hits = append(hits, hit)
	}
	slices.SortStableFunc(hits, compareHits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	tied := false
	if n := len(res.Hits); n > 0 && res.Total > uint64(n) {
		least := res.Hits[n-1].Score
		for _, h := range hits {
			tied = tied || h.Score == least
		}
	}
	return hits, res.Total, tied, nil
}

// runOnly reports whether every document in the index belongs to run. The
// run filter then keeps every match, and it is left out: on a long run it
// cost as much as scoring the matches. Both counts leave deleted documents
// out, and no other goroutine or process writes the index during a search
// (the Recaller is used by one goroutine, and bolt locks the index to one
// process).
func (ix *index) runOnly(ctx context.Context, run string) (bool, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return false, fmt.Errorf("read recall index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return false, fmt.Errorf("read recall index: %w", err)
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return false, fmt.Errorf("read recall index: %w", err)
	}
	tfr, err := r.TermFieldReader(ctx, []byte(run), fieldRun, false, false, false)
	if err != nil {
		return false, fmt.Errorf("read recall index: %w", err)
	}
	defer tfr.Close()
	return tfr.Count() == total, nil
}

// compareHits orders hits best first: score (rounded, so float noise does
// not decide), then newer, then iterations before blocks, then finer.
func compareHits(a, b Hit) int {
	sa, sb := roundScore(a.Score), roundScore(b.Score)
	switch {
	case sa != sb:
		if sa > sb {
			return -1
		}
		return 1
	case a.Last != b.Last:
		return b.Last - a.Last
	case a.Kind != b.Kind:
		if a.Kind == KindIteration {
			return -1
		}
		return 1
	case a.Level != b.Level:
		return a.Level - b.Level
	}
	return a.First - b.First
}

// blockFields reads a block document's range and level: from its id when
// the folder named it (fold.ParseBlockID), which costs no read of the
// document, and from its stored fields otherwise. A fill's deep search
// returns hundreds of block hits, and loading each one's document was 7%
// of its CPU time at 100,000 iterations.
func (ix *index) blockFields(id string) (first, last, level int, err error) {
	if _, key, ok := parseDocID(id); ok {
		if level, first, last, ok := fold.ParseBlockID(key); ok {
			return first, last, level, nil
		}
	}
	doc, err := ix.bi.Document(id)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("read recall index document %s: %w", id, err)
	}
	if doc == nil {
		return 0, 0, 0, fmt.Errorf("read recall index document %s: not found", id)
	}
	doc.VisitFields(func(f bindex.Field) {
		nf, ok := f.(bindex.NumericField)
		if !ok {
			return
		}
		v, nerr := nf.Number()
		if nerr != nil {
			return
		}
		switch f.Name() {
		case fieldFirst:
			first = int(v)
		case fieldLast:
			last = int(v)
		case fieldLevel:
			level = int(v)
		}
	})
	return first, last, level, nil
}

func roundScore(s float64) int64 { return int64(s*1e6 + 0.5) }
