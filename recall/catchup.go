package recall

import (
	"context"

	"github.com/delta-memory/delta-memory/journal"
)

// indexBatch is how many documents go into one bleve batch.
const indexBatch = 512

// CatchUp brings the index up to date with a run: its new iterations (and
// the newest one again if it grew) and its new blocks. It is cheap when
// nothing changed: one small read. progress, if set, gets the iterations
// indexed so far. It returns how many documents it wrote.
func (r *Recaller) CatchUp(ctx context.Context, run journal.Run, progress func(done int)) (int, error) {
	ix, err := r.index(ctx)
	if err != nil {
		return 0, err
	}
	st, err := r.store.state(ctx, r.store.db.Cached(), run.ID)
	if err != nil {
		return 0, err
	}
	written := 0
	from := st.IndexedIter + 1
	if st.IndexedIter > 0 && run.LastSeq > st.IndexedSeq {
		from = st.IndexedIter
	}
	iter, seq := st.IndexedIter, st.IndexedSeq
	if from <= run.Iterations {
		w := iterationWriter{r: r, ix: ix, run: run, from: from, block: st.IndexedBlock, progress: progress,
			iter: st.IndexedIter, seq: st.IndexedSeq}
		err := w.write(ctx)
		written, iter, seq = w.written, w.iter, w.seq
		if err != nil {
			return written, err
		}
	}
	if r.folds == nil {
		return written, nil
	}
	block := st.IndexedBlock
	for {
		bs, last, err := r.folds.BlocksAfter(ctx, run.ID, block, indexBatch)
		if err != nil {
			return written, err
		}
		if len(bs) == 0 {
			break
		}
		docs := make([]document, len(bs))
		for i := range bs {
			docs[i] = blockDoc(run.ID, &bs[i])
		}
		if err := ix.put(ctx, docs); err != nil {
			return written, err
		}
		written += len(docs)
		block = last
		if err := r.store.saveIndexed(ctx, run.ID, iter, seq, block); err != nil {
			return written, err
		}
	}
	return written, nil
}

// Compact merges the index's segments as far as its merge policy goes,
// and waits. A long catch-up leaves many segments, and a search visits
// each; the background merger folds them together over time, but a
// short-lived process (one command) may exit before it does.
func (r *Recaller) Compact(ctx context.Context) error {
	ix, err := r.index(ctx)
	if err != nil {
		return err
	}
	return ix.compact(ctx)
}

// putAhead is how many batches are written at once: bleve builds a batch's
// segment on one goroutine, so a second batch keeps another core busy.
const putAhead = 2

// iterationWriter indexes a run's iterations from an iteration on, and
// records how far it got: documents written, and the iteration and
// sequence number saved last.
type iterationWriter struct {
	r        *Recaller
	ix       *index
	run      journal.Run
	from     int
	block    int64
	progress func(done int)

	written int
	iter    int
	seq     int64
}

// write indexes iterations w.from to the run's last. Documents are built
// one batch ahead, and up to putAhead batches are written at once; a
// batch's position is saved once it and every batch before it are in the
// index, so a saved position is never ahead of the index. It returns after
// every goroutine it started has stopped.
func (w *iterationWriter) write(ctx context.Context) error {
	bctx, cancel := context.WithCancel(ctx)
	batches := w.r.iterationDocs(bctx, w.run.ID, w.from, w.run.Iterations)
	type pending struct {
		b    docBatch
		done chan error
	}
	var queue []pending
	defer func() {
		cancel()
		for range batches { // wait for the builder to stop
		}
		for _, p := range queue {
			<-p.done
		}
	}()
	// finish waits for the oldest batch in flight and saves its position.
	finish := func() error {
		p := queue[0]
		queue = queue[1:]
		if err := <-p.done; err != nil {
			return err
		}
		w.written += len(p.b.docs)
		w.iter = p.b.last
		if p.b.last == w.run.Iterations {
			w.seq = w.run.LastSeq
		}
		if err := w.r.store.saveIndexed(ctx, w.run.ID, w.iter, w.seq, w.block); err != nil {
			return err
		}
		if w.progress != nil {
			w.progress(p.b.last)
		}
		if w.r.OnProgress != nil {
			w.r.OnProgress(p.b.last-w.from+1, w.run.Iterations-w.from+1)
		}
		return nil
	}
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		p := pending{b: b, done: make(chan error, 1)}
		go func() { p.done <- w.ix.put(ctx, p.b.docs) }()
		queue = append(queue, p)
		if len(queue) == putAhead {
			if err := finish(); err != nil {
				return err
			}
		}
	}
	for len(queue) > 0 {
		if err := finish(); err != nil {
			return err
		}
	}
	return nil
}

// docBatch is the documents of iterations up to last, or why they could
// not be read.
type docBatch struct {
	last int
	docs []document
	err  error
}

// iterationDocs reads iterations from..to of a run and builds their
// documents, indexBatch at a time, in a goroutine. The channel is closed
// after the last batch, after an error (sent as the last batch), or once
// ctx is done.
func (r *Recaller) iterationDocs(ctx context.Context, run string, from, to int) <-chan docBatch {
	out := make(chan docBatch, 1)
	go func() {
		defer close(out)
		for a := from; a <= to; a += indexBatch {
			b := docBatch{last: min(to, a+indexBatch-1)}
			its, err := r.journal.Iterations(ctx, run, a, b.last, journal.ReadOptions{})
			if b.err = err; err == nil {
				b.docs = make([]document, len(its))
				for i, it := range its {
					b.docs[i] = iterationDoc(it)
				}
			}
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}
