package recall

import (
	"context"
	"fmt"
)

// A run's position says how far the index got: the last iteration
// indexed (with the sequence number it ended at) and the last block. It is
// saved in SQLite only once the documents it counts are on disk, so that
// an index that lost its newest batches (the process died, the machine
// lost power) is caught up from a position it really holds. A batch
// returns before it is on disk (see config), so a position waits here for
// its batch's persisted callback.

// position is how far the index got for a run.
type position struct {
	run   string
	iter  int
	seq   int64
	block int64
}

// The index records each run's position too, in the batch that reaches
// it, so that the two can be checked against each other when the index is
// next caught up: SQLite's is never ahead of what is on disk by
// construction, and if it is all the same (an older copy of the index put
// back, a disk that lost synced writes), the catch-up starts from the
// index's own instead of leaving a hole. An index written before positions
// were recorded has none, and SQLite's is taken as it is.

// positionKeyPrefix names, in bleve's internal store, a run's position.
const positionKeyPrefix = "delta-memory/position/"

func positionKey(run string) []byte { return []byte(positionKeyPrefix + run) }

// String encodes a position for the index: "iter seq block".
func (p position) String() string { return fmt.Sprintf("%d %d %d", p.iter, p.seq, p.block) }

// position returns the position the index recorded for run; ok is false
// when it recorded none.
func (ix *index) position(run string) (p position, ok bool, err error) {
	v, err := ix.bi.GetInternal(positionKey(run))
	if err != nil || len(v) == 0 {
		return p, false, err
	}
	p.run = run
	if _, err := fmt.Sscanf(string(v), "%d %d %d", &p.iter, &p.seq, &p.block); err != nil {
		return p, false, fmt.Errorf("recall index: position of run %s: %q: %w", run, v, err)
	}
	return p, true, nil
}

// behindOf lowers st's index position to own where own is behind it, and
// reports whether it did.
func (st *state) behindOf(own position) bool {
	lowered := false
	if own.iter < st.IndexedIter || own.iter == st.IndexedIter && own.seq < st.IndexedSeq {
		st.IndexedIter, st.IndexedSeq = own.iter, own.seq
		lowered = true
	}
	if own.block < st.IndexedBlock {
		st.IndexedBlock = own.block
		lowered = true
	}
	return lowered
}

// unsaved is a position whose last batch is in the open index, searchable,
// but maybe not yet on disk.
type unsaved struct {
	ix        *index
	persisted <-chan error
	pos       position
}

// onDisk reports, without waiting, whether the batch is on disk, or why it
// never will be.
func (u unsaved) onDisk() (bool, error) {
	select {
	case err := <-u.persisted:
		if err != nil {
			return true, fmt.Errorf("write recall index %s: %w", u.ix.path, err)
		}
		return true, nil
	case <-u.ix.failed:
		return true, fmt.Errorf("write recall index %s: %w", u.ix.path, u.ix.failure)
	default:
		return false, nil
	}
}

// reached records a position whose last batch was added to ix, then
// settles the positions, keeping at most keep of them unsaved: a long
// catch-up keeps a few batches in memory, not all of them.
func (r *Recaller) reached(ctx context.Context, ix *index, persisted <-chan error, pos position, keep int) error {
	r.wmu.Lock()
	r.unsaved = append(r.unsaved, unsaved{ix: ix, persisted: persisted, pos: pos})
	r.added = true
	r.wmu.Unlock()
	return r.settle(ctx, keep)
}

// Flush waits until every document indexed so far is on disk and saves
// how far the index got. Step and CatchUp return before that, so that the
// caller's work overlaps the index's fsyncs; Close flushes too.
func (r *Recaller) Flush(ctx context.Context) error { return r.settle(ctx, 0) }

// settle saves the newest position of each run whose batches are on disk,
// oldest first, waiting for the oldest batches while more than keep are
// not. Batches reach the disk in the order they were added. Positions of
// failed batches stay unsaved; Close drops them, and the next catch-up
// indexes their documents again.
func (r *Recaller) settle(ctx context.Context, keep int) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	var err error
	n := 0
	for ; n < len(r.unsaved); n++ {
		u := r.unsaved[n]
		if len(r.unsaved)-n > keep {
			err = u.ix.wait(ctx, u.persisted)
		} else {
			var ok bool
			if ok, err = u.onDisk(); !ok {
				break
			}
		}
		if err != nil {
			break
		}
	}
	var newest []position
	for _, u := range r.unsaved[:n] {
		if k := len(newest) - 1; k >= 0 && newest[k].run == u.pos.run {
			newest[k] = u.pos
			continue
		}
		newest = append(newest, u.pos)
	}
	r.unsaved = r.unsaved[n:]
	for _, p := range newest {
		if serr := r.store.saveIndexed(ctx, r.workerOf(p.run), p.run, p.iter, p.seq, p.block); serr != nil {
			return serr
		}
	}
	return err
}
