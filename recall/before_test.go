package recall

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// TestSearchBefore checks that lookup.before keeps exactly the documents
// that end before it, with the scores and order they have without it: the
// hits are those of the unbounded search with the later documents taken
// out. Blocks that start before the bound and end at or after it are left
// out, as are documents ending at the bound itself. The limit is above the
// number of matches: which of many equal scores make a cut is another
// matter.
func TestSearchBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	const n = 120
	var docs []document
	for i := 1; i <= n; i++ {
		d := document{id: docID(KindIteration, strconv.Itoa(i), "r"), run: "r", kind: KindIteration, first: i, last: i,
			text: fmt.Sprintf("step %d reads the config", i), ids: []string{"src/app.go"}}
		if i%3 == 0 {
			d.text += " and edits src/app.go again"
		}
		d.failed = i%7 == 0
		docs = append(docs, d)
		if i%10 == 0 {
			docs = append(docs, document{id: docID(KindBlock, fmt.Sprintf("b%d", i), "r"), run: "r", kind: KindBlock,
				first: i - 9, last: i, level: 1, text: "summary of the config steps", ids: []string{"src/app.go"}})
		}
	}
	// Several batches, so that the index has several segments.
	for a := 0; a < len(docs); a += 25 {
		if err := ix.put(ctx, docs[a:min(a+25, len(docs))]); err != nil {
			t.Fatal(err)
		}
	}
	for _, before := range []int{1, 2, 5, 11, 12, 60, 100, n, n + 1} {
		for _, l := range []lookup{
			{run: "r", ids: []string{"src/app.go"}},
			{run: "r", words: "edits", kind: KindIteration},
			{run: "r", words: "config edits"},
			{run: "r", ids: []string{"src/app.go"}, kind: KindIteration, from: 40},
			{run: "r", words: "config", from: 101},
		} {
			l.limit = 1000
			want, err := ix.search(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			want = slices.DeleteFunc(want, func(h Hit) bool { return h.Last >= before })
			l.before = before
			// The newest documents start and end at n: bounded there or
			// not, the ranges keep the same documents.
			for _, upTo := range []int{0, n} {
				l.upTo = upTo
				got, err := ix.search(ctx, l)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("before %d, %+v:\n got %+v\nwant %+v", before, l, got, want)
				}
			}
		}
	}
}
