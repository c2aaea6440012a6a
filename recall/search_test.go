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
