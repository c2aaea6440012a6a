package eval

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/delta-memory/delta-memory/scoring"
)

// Baseline names, as reported.
const (
	SystemDelta  = "delta"
	SystemRecent = "recent"
	SystemBM25   = "bm25-turns"
)

// Systems lists the systems an eval compares, in report order.
var Systems = []string{SystemDelta, SystemRecent, SystemBM25}

// shown is what one system put in front of the agent for one question.
type shown struct {
	text   string
	tokens int
	// ranked are turn indices, best first, for the ranking metrics.
	ranked []int
}

// turnTokens counts each turn's line once per dialogue.
func turnTokens(tok scoring.Tokenizer, d *Dialogue) []int {
	out := make([]int, len(d.Turns))
	for i, t := range d.Turns {
		out[i] = tok.Count(t.Line)
	}
	return out
}

// fitTurns takes turns in the given order while their lines, one per line,
// stay within budget tokens. contiguous stops at the first turn that does
// not fit; otherwise that turn is skipped and the next ones tried. It
// returns the turns taken, in the order given, and their text in
// chronological order with its token count.
func fitTurns(tok scoring.Tokenizer, d *Dialogue, lens []int, order []int, budget int, contiguous bool) (picked []int, text string, tokens int) {
	used := 0
	for _, i := range order {
		// +1 for the newline that joins lines.
		if used+lens[i]+1 > budget {
			if contiguous {
				break
			}
			continue
		}
		used += lens[i] + 1
		picked = append(picked, i)
	}
	// Counting the parts bounds the whole; check it, and drop the last
	// taken while the joined text is over.
	for {
		text = joinTurns(d, picked)
		tokens = tok.Count(text)
		if tokens <= budget || len(picked) == 0 {
			return picked, text, tokens
		}
		picked = picked[:len(picked)-1]
	}
}

// joinTurns writes the turns' lines in chronological order.
func joinTurns(d *Dialogue, turns []int) string {
	marked := make([]bool, len(d.Turns))
	for _, i := range turns {
		marked[i] = true
	}
	var b []byte
	for i, m := range marked {
		if m {
			b = append(b, d.Turns[i].Line...)
			b = append(b, '\n')
		}
	}
	return string(b)
}

// recentTurns is the recent baseline: the newest turns that fit.
func recentTurns(tok scoring.Tokenizer, d *Dialogue, lens []int, budget int) shown {
	order := make([]int, len(d.Turns))
	for i := range order {
		order[i] = len(d.Turns) - 1 - i
	}
	_, text, tokens := fitTurns(tok, d, lens, order, budget, true)
	return shown{text: text, tokens: tokens, ranked: order}
}

// bm25Index is the bm25-turns baseline over one dialogue: a plain BM25
// index of its turns' lines (English analysis, as the recall index), with
// no folding and no expansion.
type bm25Index struct {
	ix bleve.Index
	n  int
}

func newBM25Index(d *Dialogue) (*bm25Index, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = bindex.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	// In memory (no path), and scorch: bleve scores BM25 on scorch only;
	// its default in-memory index falls back to TF-IDF.
	ix, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("bm25-turns baseline index: %w", err)
	}
	b := ix.NewBatch()
	for i, t := range d.Turns {
		if err := b.Index(docKey(i), map[string]any{"text": t.Line}); err != nil {
			ix.Close()
			return nil, fmt.Errorf("bm25-turns baseline index: %w", err)
		}
	}
	if err := ix.Batch(b); err != nil {
		ix.Close()
		return nil, fmt.Errorf("bm25-turns baseline index: %w", err)
	}
	return &bm25Index{ix: ix, n: len(d.Turns)}, nil
}

// docKey names turn i so that ids sort in turn order, for stable ties.
func docKey(i int) string { return fmt.Sprintf("%07d", i) }

// rank returns the turns matching question, best first (ties: earlier
// turn first).
func (b *bm25Index) rank(ctx context.Context, question string) ([]int, error) {
	q := bleve.NewMatchQuery(question)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, b.n, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := b.ix.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("bm25-turns baseline search: %w", err)
	}
	out := make([]int, 0, len(res.Hits))
	for _, h := range res.Hits {
		if i, err := strconv.Atoi(h.ID); err == nil {
			out = append(out, i)
		}
	}
	return out, nil
}

// topTurns is the bm25-turns baseline for one question: the best-ranked
// turns that fit.
func (b *bm25Index) topTurns(ctx context.Context, tok scoring.Tokenizer, d *Dialogue, lens []int, question string, budget int) (shown, error) {
	ranked, err := b.rank(ctx, question)
	if err != nil {
		return shown{}, err
	}
	_, text, tokens := fitTurns(tok, d, lens, ranked, budget, false)
	return shown{text: text, tokens: tokens, ranked: ranked}, nil
}

func (b *bm25Index) close() error { return b.ix.Close() }
