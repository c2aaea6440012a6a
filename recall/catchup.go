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
	st, err := r.store.state(ctx, r.store.db.Read, run.ID)
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
		// The next batch is read and built while the index takes this one.
		bctx, cancel := context.WithCancel(ctx)
		batches := r.iterationDocs(bctx, run.ID, from, run.Iterations)
		defer func() {
			cancel()
			for range batches { // wait for the builder to stop
			}
		}()
		for b := range batches {
			if b.err != nil {
				return written, b.err
			}
			if err := ix.put(ctx, b.docs); err != nil {
				return written, err
			}
			written += len(b.docs)
			iter = b.last
			if b.last == run.Iterations {
				seq = run.LastSeq
			}
			if err := r.store.saveIndexed(ctx, run.ID, iter, seq, st.IndexedBlock); err != nil {
				return written, err
			}
			if progress != nil {
				progress(b.last)
			}
			if r.OnProgress != nil {
				r.OnProgress(b.last-from+1, run.Iterations-from+1)
			}
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
