package recall

import (
	"context"
	"testing"
)

// TestActingAgainMakesARecallAnew: iteration 40 was recalled at step 100.
// A step that only names it again (Again unset) refreshes that recall; a
// step whose call acts on it again makes a new one of the same range, and
// refreshes the first too; a second such recall in the same step is
// folded into the one it made; a range held only inside a wider recall
// refreshes the wider one.
func TestActingAgainMakesARecallAnew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := newTestRecaller(t)
	apply := func(now int, add ...Recall) []Recall {
		t.Helper()
		if _, err := r.store.apply(ctx, "r", now, 8, change{add: add}); err != nil {
			t.Fatal(err)
		}
		active, err := r.store.active(ctx, r.store.db.Read, "r", now)
		if err != nil {
			t.Fatal(err)
		}
		return active
	}
	of := func(active []Recall, first, last int) []Recall {
		var out []Recall
		for _, a := range active {
			if a.First == first && a.Last == last {
				out = append(out, a)
			}
		}
		return out
	}
	implicit := func(n int, again bool) Recall {
		return Recall{First: n, Last: n, Reason: ReasonImplicit, Query: "src/app.py", Score: 0.9, Again: again}
	}

	active := apply(100, implicit(40, true))
	if got := of(active, 40, 40); len(got) != 1 || got[0].Since != 100 || got[0].Expires != 108 {
		t.Fatalf("the first recall of 40: %+v, want one made at 100, expiring at 108", got)
	}
	active = apply(103, implicit(40, false))
	if got := of(active, 40, 40); len(got) != 1 || got[0].Expires != 111 {
		t.Fatalf("named again at 103 without acting on it: %+v, want the one recall, refreshed to 111", got)
	}
	active = apply(105, implicit(40, true), implicit(40, true))
	got := of(active, 40, 40)
	if len(got) != 2 {
		t.Fatalf("acted on again at 105: %+v, want the first recall and one made at 105", got)
	}
	for _, a := range got {
		if a.Expires != 113 {
			t.Errorf("recall %d of 40 expires at %d, want 113: both live from 105", a.ID, a.Expires)
		}
	}
	if got[0].Since != 105 || got[1].Since != 100 {
		t.Errorf("the recalls of 40 were made at %d and %d, want 105 and 100", got[0].Since, got[1].Since)
	}
	// A wider recall holds 41 inside its range: acting on 41 refreshes it.
	apply(106, Recall{First: 41, Last: 43, Reason: ReasonExplicit, Query: "app", Score: 1})
	active = apply(107, implicit(41, true))
	if got := of(active, 41, 41); len(got) != 0 {
		t.Errorf("acting on 41, held in a recall of 41-43: %+v, want no recall of 41 alone", got)
	}
	if got := of(active, 41, 43); len(got) != 1 || got[0].Expires != 115 {
		t.Errorf("the recall of 41-43 after 107 acted on 41: %+v, want it refreshed to 115", got)
	}
}
