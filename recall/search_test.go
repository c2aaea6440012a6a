package recall

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRunOnly checks when a search can leave out the run filter: only
// while every live document belongs to the run, updated documents (whose
// old versions are deleted) included.
func TestRunOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix, err := createIndex(filepath.Join(t.TempDir(), "memory.bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.close() })
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
