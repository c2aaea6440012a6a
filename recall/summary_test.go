package recall

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/delta-memory/delta-memory/journal"
)

// TestBlockTextIsItsOwnField indexes two iterations and a block summing
// them up: the block's words are in its summary field only, so they do not
// count in the iterations' text statistics (a summary repeats a range's
// salient words, which would lower their weight), and a word search still
// finds both kinds.
func TestBlockTextIsItsOwnField(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix, _, err := openIndex(filepath.Join(t.TempDir(), "ix"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	docs := []document{
		iterationDoc(&journal.Iteration{Run: "r", Number: 1, Thought: "We sailed the blue canoe across the lake."}),
		iterationDoc(&journal.Iteration{Run: "r", Number: 2, Thought: "The weather turned cold."}),
		blockDoc("r", &BlockDoc{ID: "L2-1-2", Level: 2, First: 1, Last: 2, Title: "Canoe trip", Content: "A canoe trip; the canoe was blue."}),
	}
	if err := ix.put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]uint64{fieldText: 1, fieldSummary: 1} {
		q := bleve.NewTermQuery("cano") // the English stem of "canoe"
		q.SetField(field)
		res, err := ix.bi.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != want {
			t.Errorf("%s: %d documents hold the word, want %d", field, res.Total, want)
		}
	}
	hits, err := ix.search(ctx, lookup{run: "r", words: "canoe", limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, h := range hits {
		kinds[h.Kind] = true
		// An iteration's number comes from its id; a block's range and
		// level from its stored fields.
		want := Hit{Kind: KindIteration, First: 1, Last: 1}
		if h.Kind == KindBlock {
			want = Hit{Kind: KindBlock, Block: "L2-1-2", First: 1, Last: 2, Level: 2}
		}
		if h.Kind != want.Kind || h.Block != want.Block || h.First != want.First || h.Last != want.Last || h.Level != want.Level {
			t.Errorf("hit %+v, want %+v", h, want)
		}
	}
	if len(hits) != 2 || !kinds[KindIteration] || !kinds[KindBlock] {
		t.Errorf("a search for canoe found %+v, want iteration 1 and the block", hits)
	}
}
