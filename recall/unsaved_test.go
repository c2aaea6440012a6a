package recall

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// newTestRecaller opens a Recaller over a new database in t.TempDir, with
// its index open; both close at cleanup.
func newTestRecaller(t *testing.T) (*Recaller, *index) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqldb.Open(ctx, pgtest.Target(t, dir), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, journal.NewStore(db), nil, filepath.Join(dir, "memory.bleve"), DefaultConfig())
	t.Cleanup(func() {
		r.Close()
		db.Close()
	})
	// Positions belong to a run.
	ev, err := journal.ParseDeltaLine([]byte(`{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_START","payload":{"run_id":"r","task":"t"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.journal.Append(ctx, "r", journal.FormatDelta, []journal.Event{ev}); err != nil {
		t.Fatal(err)
	}
	ix, err := r.index(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	return r, ix
}

// TestPositionsWaitForTheDisk checks that a position is saved only once
// its batch is on disk, in order, and never after the persister failed.
// The batches' persisted callbacks are played by hand.
func TestPositionsWaitForTheDisk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, ix := newTestRecaller(t)
	saved := func() (int, int64) {
		t.Helper()
		st, err := r.store.state(ctx, r.store.db.Read, r.workerOf("r"), "r")
		if err != nil {
			t.Fatal(err)
		}
		return st.IndexedIter, st.IndexedSeq
	}
	first, second, third := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	r.unsaved = []unsaved{{ix, first, position{"r", 1, 10, 0}}, {ix, second, position{"r", 2, 20, 0}}}

	if err := r.settle(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if it, _ := saved(); it != 0 {
		t.Fatalf("saved iteration %d before any batch was on disk", it)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := r.Flush(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a flush with nothing on disk returned %v, want it to wait until the deadline", err)
	}

	// The second batch reports first: the first is still not known to be
	// on disk, so neither position may be saved.
	second <- nil
	if err := r.settle(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if it, _ := saved(); it != 0 {
		t.Fatalf("saved iteration %d past a batch not on disk", it)
	}
	first <- nil
	if err := r.reached(ctx, ix, third, position{"r", 3, 30, 0}, 2); err != nil {
		t.Fatal(err)
	}
	if it, seq := saved(); it != 2 || seq != 20 {
		t.Fatalf("saved %d/%d, want 2/20: the newest position on disk", it, seq)
	}

	ix.fail(errors.New("no space left on device"))
	if err := r.Flush(ctx); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("flush after a failed write returned %v", err)
	}
	if err := r.Close(); err == nil {
		t.Fatal("close after a failed write reported no error")
	}
	if it, _ := saved(); it != 2 {
		t.Fatalf("saved iteration %d, whose batch never reached the disk", it)
	}
}

// TestCatchUpRecordsPositionsInTheIndex checks that the index records the
// position each catch-up reaches, in the batch that reaches it.
func TestCatchUpRecordsPositionsInTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, ix := newTestRecaller(t)
	docs := []document{{id: docID(KindIteration, "1", "r"), run: "r", kind: KindIteration, first: 1, last: 1, text: "one"}}
	persisted, err := ix.add(ctx, docs, &position{run: "r", iter: 1, seq: 4, block: 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.wait(ctx, persisted); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := ix.position("r"); err != nil || !ok || p.iter != 1 || p.seq != 4 {
		t.Fatalf("position of r = %+v, %v, %v; want iteration 1, seq 4", p, ok, err)
	}
	if _, ok, err := ix.position("other"); err != nil || ok {
		t.Fatalf("a run never indexed has a position: %v, %v", ok, err)
	}
	// A lower record lowers the stored state; a higher one does not.
	st := state{IndexedIter: 5, IndexedSeq: 50, IndexedBlock: 3}
	if st.behindOf(position{iter: 6, seq: 60, block: 3}) || st.IndexedIter != 5 {
		t.Fatalf("a record ahead of the database changed it: %+v", st)
	}
	if !st.behindOf(position{iter: 5, seq: 40, block: 1}) || st.IndexedSeq != 40 || st.IndexedBlock != 1 {
		t.Fatalf("a record behind the database did not lower it: %+v", st)
	}
	_ = r
}
