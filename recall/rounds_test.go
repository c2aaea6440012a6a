package recall

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// TestARoundKeepsTheFirstSearchOfTheRoundBefore: a fill's next round
// over the same state (the same Around) gets the first search of the
// round before from it, not from the index, and a search of other words
// or to another depth asks the index. The index changes between the
// rounds here, as it never does within a fill, so that which of them
// answered shows.
func TestARoundKeepsTheFirstSearchOfTheRoundBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := newTestIndex(t)
	doc := func(n int, text string) document {
		return document{id: docID(KindIteration, strconv.Itoa(n), "a"), run: "a", kind: KindIteration, first: n, last: n, text: text}
	}
	var docs []document
	for n := 1; n <= 6; n++ {
		docs = append(docs, doc(n, "the lease timeout was raised"))
	}
	if err := ix.put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var a Around
	a.reset("a", 6, 1, true)
	l := lookup{run: "a", words: "lease timeout", limit: 10, follow: 3}
	first, err := a.firstSearch(ctx, ix, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 6 {
		t.Fatalf("the first round found %d hits, want the 6 documents", len(first))
	}
	first[0].First = -1 // the round's own copy: what it does to it is kept from the next
	if err := ix.put(ctx, []document{doc(7, "lease timeout")}); err != nil {
		t.Fatal(err)
	}
	count := func(l lookup) int {
		t.Helper()
		hits, err := a.firstSearch(ctx, ix, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 && hits[0].First == -1 {
			t.Fatalf("lookup %+v: a round's change to its hits reached the next round", l)
		}
		return len(hits)
	}
	again := l
	again.follow = 6 // the next round asks for more hits: the searches that follow rank deeper
	if n := count(again); n != 6 {
		t.Errorf("the next round's first search gave %d hits, want the 6 of the round before", n)
	}
	for _, other := range []lookup{
		{run: "a", words: "lease timeout", limit: 20, follow: 6},
		{run: "a", words: "lease timeout raised", limit: 10, follow: 6},
		{run: "a", words: "lease timeout", ids: []string{"lease"}, limit: 10, follow: 6},
		{run: "a", words: "lease timeout", limit: 10, follow: 6, before: 8, upTo: 7},
	} {
		if n := count(other); n != 7 {
			t.Errorf("lookup %+v gave %d hits, want the 7 documents now in the index: it is another search", other, n)
		}
	}
	var none *Around // a recall that no round follows keeps nothing
	if hits, err := none.firstSearch(ctx, ix, l); err != nil || len(hits) != 7 {
		t.Errorf("with no Around the first search gave %d hits (%v), want the 7 in the index", len(hits), err)
	}
	a.reset("a", 7, 1, true) // the run grew: another state
	if n := count(l); n != 7 {
		t.Errorf("after the run grew the first search gave %d hits, want 7", n)
	}
}

// TestARoundKeepsTheExpansionOfTheRoundBefore: the second hop's words
// for the same question and the same best hits come from the round
// before, without reading the journal again; other best hits are read.
// The journal is closed between the rounds, so that a read fails.
func TestARoundKeepsTheExpansionOfTheRoundBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	js, err := journal.Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	lines := []string{"We hiked the ridge trail to the glacier lake.", "The glacier lake trail was closed after the storm.", "Lunch was soup.", "A ridge hike again, to the glacier."}
	// The events of testrun.Conversation, made here: testrun opens an
	// engine, and the engine imports this package.
	var events []journal.Event
	add := func(typ string, payload any) {
		raw, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, journal.Event{Seq: int64(len(events) + 1), Timestamp: time.Date(2026, 3, 1, 9, len(events), 0, 0, time.UTC), Type: typ, Payload: raw})
	}
	add(journal.TypeRunStart, journal.RunStartPayload{RunID: "a", Task: "talk"})
	for _, l := range lines {
		add(journal.TypeThought, journal.ThoughtPayload{Content: l})
	}
	if _, err := js.Append(ctx, "a", journal.FormatDelta, events); err != nil {
		t.Fatal(err)
	}
	ix := newTestIndex(t)
	var docs []document
	for n := 1; n <= 40; n++ {
		docs = append(docs, document{id: docID(KindIteration, strconv.Itoa(n), "a"), run: "a", kind: KindIteration, first: n, last: n, text: "filler words about nothing much"})
	}
	docs = append(docs, document{id: docID(KindIteration, "41", "a"), run: "a", kind: KindIteration, first: 41, last: 41, text: "glacier ridge"})
	if err := ix.put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	r := &Recaller{journal: js, cfg: DefaultConfig()}
	var a Around
	a.reset("a", 4, 1, true)
	best := []Hit{{Kind: KindIteration, First: 1, Last: 1}, {Kind: KindIteration, First: 2, Last: 2}, {Kind: KindIteration, First: 4, Last: 4}}
	words, err := a.expansion(ctx, r, ix, "a", "where did we hike?", best)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(words, "glacier") {
		t.Fatalf("expansion %q, want glacier: three of the best hits say it", words)
	}
	if err := js.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := a.expansion(ctx, r, ix, "a", "where did we hike?", append(best, Hit{Kind: KindBlock, Block: "b", First: 1, Last: 4}))
	if err != nil {
		t.Fatalf("the next round read the journal again for the same best hits: %v", err)
	}
	if !slices.Equal(again, words) {
		t.Errorf("the next round's expansion %q, want the round before's %q", again, words)
	}
	if _, err := a.expansion(ctx, r, ix, "a", "where did we hike?", best[:2]); err == nil {
		t.Error("other best hits were not read from the journal: the expansion was the round before's")
	}
	if _, err := a.expansion(ctx, r, ix, "a", "what was closed?", best); err == nil {
		t.Error("another question was not read from the journal: the expansion was the round before's")
	}
}
