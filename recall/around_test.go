package recall

import (
	"context"
	"errors"
	"testing"
)

// failingNotes answers Noted from notes, failing the first fails calls.
type failingNotes struct {
	foldedAt
	notes map[int]Noted
	fails int
	calls int
}

func (f *failingNotes) Noted(_ context.Context, _ string, numbers []int) (map[int]Noted, error) {
	f.calls++
	if f.calls <= f.fails {
		return nil, errors.New("database is locked")
	}
	out := map[int]Noted{}
	for _, n := range numbers {
		if v, ok := f.notes[n]; ok {
			out[n] = v
		}
	}
	return out, nil
}

// TestAroundReadsAgainAfterAFailure: a read that failed leaves its hits
// to be read again by the next try with the same Around, rather than
// taken as read with nothing known of them (shown in full, no tokens).
func TestAroundReadsAgainAfterAFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := &failingNotes{notes: map[int]Noted{9: {Tokens: 500, Folded: true}, 10: {Tokens: 20, Folded: true}, 11: {Tokens: 500, Folded: true}}, fails: 1}
	r := &Recaller{folds: f}
	hits := []Hit{{Kind: KindIteration, First: 10, Last: 10}}
	var a Around
	a.reset("r", 20, 1, false)
	if err := a.need(ctx, r, hits, 0, 10); err == nil {
		t.Fatal("the failing read did not fail")
	}
	if err := a.need(ctx, r, hits, 0, 10); err != nil {
		t.Fatal(err)
	}
	if f.calls != 2 {
		t.Fatalf("%d reads of the notes, want the failed one and another", f.calls)
	}
	if full := a.inFull(10, 10); full != 0 {
		t.Errorf("iteration 10 counts %d in full after the retry, want 0: it is folded", full)
	}
	if lo, hi := a.trimContext(hits[0], 9, 11); lo != 10 || hi != 10 {
		t.Errorf("context %d-%d, want 10-10: its neighbours are too long", lo, hi)
	}
}
