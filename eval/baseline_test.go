package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/delta-memory/delta-memory/scoring"
)

func testDialogue(lines ...string) *Dialogue {
	d := &Dialogue{ID: "t"}
	for i, l := range lines {
		d.Turns = append(d.Turns, Turn{ID: string(rune('a' + i)), Session: "s", Line: l})
	}
	return d
}

func TestFitTurns(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 40)
	d := testDialogue("short one", long, "short two", "short three")
	lens := turnTokens(tok, d)
	budget := lens[0] + lens[2] + lens[3] + 3
	// In rank order 3, 1, 0, 2: the long turn does not fit.
	picked, text, tokens := fitTurns(tok, d, lens, []int{3, 1, 0, 2}, budget, false)
	if !slices.Equal(picked, []int{3, 0, 2}) {
		t.Errorf("skipping: picked %v, want [3 0 2]", picked)
	}
	if text != "short one\nshort two\nshort three\n" || tokens > budget || tokens != tok.Count(text) {
		t.Errorf("skipping: text %q, %d tokens (budget %d)", text, tokens, budget)
	}
	picked, _, _ = fitTurns(tok, d, lens, []int{3, 2, 1, 0}, budget, true)
	if !slices.Equal(picked, []int{3, 2}) {
		t.Errorf("contiguous: picked %v, want [3 2]", picked)
	}
	if picked, text, tokens = fitTurns(tok, d, lens, []int{1}, 5, false); len(picked) != 0 || text != "" || tokens != 0 {
		t.Errorf("nothing fits: %v %q %d", picked, text, tokens)
	}
}

func TestBM25Baseline(t *testing.T) {
	t.Parallel()
	d := testDialogue("we sailed the red canoe", "the weather was fine", "a canoe and a canoe", "nothing here")
	bm, err := newBM25Index(d)
	if err != nil {
		t.Fatal(err)
	}
	defer bm.close()
	got, err := bm.rank(context.Background(), "canoe?")
	if err != nil {
		t.Fatal(err)
	}
	// Only the turns naming a canoe match, the one naming it twice first.
	if !slices.Equal(got, []int{2, 0}) {
		t.Errorf("rank = %v, want [2 0]", got)
	}
}

func TestPresent(t *testing.T) {
	t.Parallel()
	d := testDialogue("[D1:1] Ana (May): one  two\nthree", "[D1:2] Ben (May): four")
	text := "## Working\nThought: [D1:1] Ana (May): one two three\n\n[iter 2] thought: [D1:2] Ben (May): fo…"
	if n := d.present(text, []int{0, 1}); n != 1 {
		t.Errorf("present = %d, want 1: the first line is there with other white space, the second only cut", n)
	}
}

// TestBM25BaselineScoresBM25 guards against bleve's silent fallback to
// TF-IDF on indexes that cannot give BM25 its statistics.
func TestBM25BaselineScoresBM25(t *testing.T) {
	t.Parallel()
	bm, err := newBM25Index(testDialogue("we sailed the red canoe", "the weather was fine"))
	if err != nil {
		t.Fatal(err)
	}
	defer bm.close()
	q := bleve.NewMatchQuery("canoe")
	q.SetField("text")
	res, err := bm.ix.Search(bleve.NewSearchRequestOptions(q, 1, 0, true))
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("search: %v, %d hits", err, len(res.Hits))
	}
	if expl := res.Hits[0].Expl.String(); !strings.Contains(expl, "bm25") {
		t.Errorf("the baseline does not score with BM25:\n%s", expl)
	}
}
