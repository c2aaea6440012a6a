package recall

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// newTestIndex creates an index in t.TempDir, closed at cleanup.
func newTestIndex(t *testing.T) *index {
	t.Helper()
	ix, err := createIndex(filepath.Join(t.TempDir(), "memory.bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.close() })
	return ix
}

// TestRunOnly checks when a search can leave out the run filter: only
// while every live document belongs to the run, updated documents (whose
// old versions are deleted) included.
func TestRunOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	doc := func(run string, n int, text string) document {
		return document{id: docID(KindIteration, string(rune('0'+n)), run), run: run, kind: KindIteration, first: n, last: n, text: text}
	}
	check := func(run string, want bool) {
		t.Helper()
		got, err := ix.runOnly(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("runOnly(%q) = %v, want %v", run, got, want)
		}
	}
	check("a", true) // empty: nothing to filter out
	if err := ix.put(ctx, []document{doc("a", 1, "config timeout"), doc("a", 2, "config")}); err != nil {
		t.Fatal(err)
	}
	if err := ix.put(ctx, []document{doc("a", 2, "config timeout again")}); err != nil {
		t.Fatal(err)
	}
	check("a", true)
	check("b", false)
	if err := ix.put(ctx, []document{doc("b", 1, "config timeout")}); err != nil {
		t.Fatal(err)
	}
	check("a", false)
	hits, err := ix.search(ctx, lookup{run: "a", words: "config timeout", limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("search of run a found %d hits, want its 2 documents: %+v", len(hits), hits)
	}
}

// TestCompactMergesSegments checks that compact merges the segments of
// many small batches as far as the merge policy goes, with every document
// still found.
func TestCompactMergesSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	const batches, per = 40, 5
	for b := range batches {
		docs := make([]document, per)
		for i := range docs {
			n := b*per + i + 1
			docs[i] = document{id: docID(KindIteration, strconv.Itoa(n), "a"), run: "a", kind: KindIteration, first: n, last: n,
				text: "lease timeout worker " + strconv.Itoa(n)}
		}
		if err := ix.put(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	segments := func() int {
		adv, err := ix.bi.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		r, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return len(r.(*scorch.IndexSnapshot).Segments())
	}
	if err := ix.compact(ctx); err != nil {
		t.Fatal(err)
	}
	n := segments()
	if n > mergePlan().MaxSegmentsPerTier {
		t.Fatalf("%d segments after compact, want at most %d", n, mergePlan().MaxSegmentsPerTier)
	}
	// Settled: another round of the policy finds nothing to merge.
	adv, _ := ix.bi.Advanced()
	plan := mergePlan()
	if err := adv.(*scorch.Scorch).ForceMerge(ctx, &plan); err != nil {
		t.Fatal(err)
	}
	if again := segments(); again != n {
		t.Fatalf("another merge round went from %d segments to %d: compact stopped early", n, again)
	}
	hits, err := ix.search(ctx, lookup{run: "a", words: "lease timeout", limit: batches * per})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != batches*per {
		t.Fatalf("found %d documents after compact, want %d", len(hits), batches*per)
	}
}

// TestATieAtTheCutDoesNotFollowTheIndexOrder indexes the same documents,
// thirty of one score for the query, into two indexes in opposite orders,
// and checks that a search cut inside the tie keeps the same hits from
// both: which tied documents make the cut must not follow the order in
// which the index holds them, which background merges change. (Each index
// is one batch, one segment: the scores themselves depend on the segments,
// as bleve's BM25 reads the average length off their dictionaries.)
func TestATieAtTheCutDoesNotFollowTheIndexOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 120
	build := func(reverse bool) *index {
		ix := newTestIndex(t)
		docs := make([]document, 0, n)
		for i := range n {
			k := i + 1
			if reverse {
				k = n - i
			}
			text := "the lease timeout again"
			if k%4 != 0 {
				text = "the worker wrote its batch again"
			}
			docs = append(docs, document{id: docID(KindIteration, strconv.Itoa(k), "a"), run: "a", kind: KindIteration, first: k, last: k, text: text})
		}
		if err := ix.put(ctx, docs); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	forward, backward := build(false), build(true)
	for _, limit := range []int{1, 5, 20} {
		a, err := forward.search(ctx, lookup{run: "a", words: "lease timeout", limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		b, err := backward.search(ctx, lookup{run: "a", words: "lease timeout", limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != limit || len(b) != limit {
			t.Fatalf("limit %d: %d and %d hits", limit, len(a), len(b))
		}
		for i := range a {
			if a[i].First != b[i].First || a[i].Score != b[i].Score {
				t.Fatalf("limit %d: hit %d is iteration %d (%.6f) from one index and %d (%.6f) from the other: the tie was cut by the index's order",
					limit, i, a[i].First, a[i].Score, b[i].First, b[i].Score)
			}
		}
	}
}

// TestBlockHitsKnowTheirRange checks that a block hit carries its range and
// level whether its id is one the folder makes, read without the stored
// document, or another, read from it.
func TestBlockHitsKnowTheirRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	docs := []document{
		{id: docID(KindBlock, "L3-5-90.2", "r"), run: "r", kind: KindBlock, first: 5, last: 90, level: 3, text: "the canoe trip"},
		{id: docID(KindBlock, "imported-7", "r"), run: "r", kind: KindBlock, first: 91, last: 120, level: 2, text: "the canoe again"},
	}
	if err := ix.put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.search(ctx, lookup{run: "r", words: "canoe", limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]int{}
	for _, h := range hits {
		got[h.Block] = [3]int{h.First, h.Last, h.Level}
	}
	want := map[string][3]int{"L3-5-90.2": {5, 90, 3}, "imported-7": {91, 120, 2}}
	if len(got) != len(want) || got["L3-5-90.2"] != want["L3-5-90.2"] || got["imported-7"] != want["imported-7"] {
		t.Errorf("block hits %v, want %v", got, want)
	}
}
