package recall

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/delta-memory/delta-memory/journal"
)

// indexBatch is how many documents go into one bleve batch. It also shapes
// scoring: bleve's BM25 takes a field's mean length to be the sum of its
// terms counted in each segment over the documents, so the segments a
// catch-up makes move scores a little (the evaluations' figures are for
// this size; batches of 64 cost LongMemEval 0.03 of session recall).
const indexBatch = 512

// A catch-up of bulkFrom iterations or more (an import or reindex of a long
// run) goes in batches of bulkBatch: fewer and larger segments, which cost
// less to build and to merge. On a 100,000-iteration run, timed in
// interleaved pairs, it indexed about 9% more iterations a second. Shorter
// catch-ups keep indexBatch, the size their scores were measured with.
const (
	bulkFrom  = 20_000
	bulkBatch = 2048
)

// CatchUp brings the index up to date with a run: its new iterations (and
// the newest one again if it grew) and its new blocks. It is cheap when
// nothing changed: one small read. progress, if set, gets the iterations
// indexed so far. It returns how many documents it wrote, once they are
// searchable; they reach the disk in the background (see Flush).
func (r *Recaller) CatchUp(ctx context.Context, run journal.Run, progress func(done int)) (int, error) {
	return r.catchUp(ctx, run, progress, false)
}

// CatchUpIfDue is CatchUp when the index lacks Config.IndexEvery-early
// or more of the run's iterations (Step catches up at IndexEvery), and
// reports whether it did. A process with time between syncs (the
// resident server, once it has answered) calls it with early 1: the next
// sync, which adds an iteration, then finds nothing due.
func (r *Recaller) CatchUpIfDue(ctx context.Context, run journal.Run, early int) (bool, error) {
	st, err := r.state(ctx, run.ID)
	if err != nil || !r.indexDue(st, run, early) {
		return false, err
	}
	_, err = r.catchUp(ctx, run, nil, false)
	return err == nil, err
}

// catchUp is CatchUp. When lazy, it opens the index only if the positions
// stored in SQLite say there is something to write: a step that brought
// nothing new then costs two small reads, not an index opened and closed.
// Opening checks that the index is the one the positions describe, and
// resets them if not, so the state is read again after.
func (r *Recaller) catchUp(ctx context.Context, run journal.Run, progress func(done int), lazy bool) (int, error) {
	if err := r.settle(ctx, 0); err != nil {
		return 0, err
	}
	if lazy {
		todo, err := r.behind(ctx, run)
		if err != nil || !todo {
			return 0, err
		}
	}
	ix, err := r.index(ctx, run.ID)
	if err != nil {
		return 0, err
	}
	st, err := r.state(ctx, run.ID)
	if err != nil {
		return 0, err
	}
	own, ok, err := ix.position(run.ID)
	if err != nil {
		return 0, err
	}
	if ok && r.perRun && st.IndexedIter == 0 && st.IndexedBlock == 0 && (own.iter > 0 || own.block > 0) {
		// The database forgot how far this run's own index got (the run
		// was replaced by a copy, or the database restored): what the
		// index holds may be documents the run no longer has. Start it
		// over.
		if err := r.Forget(ctx, run.ID); err != nil {
			return 0, err
		}
		if ix, err = r.index(ctx, run.ID); err != nil {
			return 0, err
		}
		ok = false
	}
	if ok {
		ahead, newest, err := r.aheadOfDatabase(ctx, run, st, own)
		if err != nil {
			return 0, err
		}
		if ahead {
			// The database was put back to an older copy beside the
			// index: the index holds iterations or blocks it no longer
			// has, which would come back as hits. Index the run again
			// from the start.
			if r.Warn != nil {
				r.Warn(fmt.Sprintf("recall index %s holds run %s up to iteration %d and block %d, which the database (%d iterations) does not have: was it put back to an older copy? Indexing the run again",
					r.dir, run.ID, own.iter, own.block, newest))
			}
			if ix, err = r.restart(ctx, ix, run.ID); err != nil {
				return 0, err
			}
			st.IndexedIter, st.IndexedSeq, st.IndexedBlock = 0, 0, 0
			ok = false
		}
	}
	if ok {
		stored := st
		if st.behindOf(own) && r.Warn != nil {
			r.Warn(fmt.Sprintf("recall index %s holds run %s up to iteration %d and block %d, not %d and %d as the database says (it lost its last writes); catching it up",
				r.dir, run.ID, own.iter, own.block, stored.IndexedIter, stored.IndexedBlock))
		}
	}
	written := 0
	iter, seq := st.IndexedIter, st.IndexedSeq
	if from := st.indexFrom(run); from <= run.Iterations {
		w := iterationWriter{r: r, ix: ix, run: run, from: from, block: st.IndexedBlock, progress: progress,
			iter: st.IndexedIter, seq: st.IndexedSeq, mentioned: st.MentionedIter}
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
		pos := position{run: run.ID, iter: iter, seq: seq, block: last}
		persisted, err := ix.add(ctx, docs, &pos)
		if err != nil {
			return written, err
		}
		written += len(docs)
		block = last
		if err := r.reached(ctx, ix, persisted, pos, putAhead); err != nil {
			return written, err
		}
	}
	return written, nil
}

// indexFrom is the first iteration of run the index lacks: the one after
// the last indexed, or the last indexed again if the run grew since.
func (st state) indexFrom(run journal.Run) int {
	if st.IndexedIter > 0 && run.LastSeq > st.IndexedSeq {
		return st.IndexedIter
	}
	return st.IndexedIter + 1
}

// behind reports whether, by the positions stored in SQLite, the index
// lacks iterations or blocks of run.
func (r *Recaller) behind(ctx context.Context, run journal.Run) (bool, error) {
	st, err := r.state(ctx, run.ID)
	if err != nil {
		return false, err
	}
	if st.indexFrom(run) <= run.Iterations {
		return true, nil
	}
	if r.folds == nil {
		return false, nil
	}
	bs, _, err := r.folds.BlocksAfter(ctx, run.ID, st.IndexedBlock, 1)
	return len(bs) > 0, err
}

// Compact merges the index's segments as far as its merge policy goes,
// and waits. A long catch-up leaves many segments, and a search visits
// each; the background merger folds them together over time, but a
// short-lived process (one command) may exit before it does.
func (r *Recaller) Compact(ctx context.Context) error {
	if r.perRun && r.ixRun == "" {
		return nil // no run's index is open
	}
	ix, err := r.index(ctx, r.ixRun)
	if err != nil {
		return err
	}
	return ix.compact(ctx)
}

// putAhead is how many batches are written at once: bleve builds a batch's
// segment on one goroutine, so a second batch keeps another core busy.
const putAhead = 4

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
	// mentioned is how far the run's mentions go; the documents built
	// for the index give those of the iterations after it (see
	// mentionDocs).
	mentioned int
}

// mentionDocs saves the mentions of a batch's iterations after
// w.mentioned, from their documents: a long catch-up reads and scans each
// iteration once for both. It leaves a batch that does not follow on from
// w.mentioned, and the run's newest iteration, to Recaller.mention.
func (w *iterationWriter) mentionDocs(ctx context.Context, docs []document) error {
	var b mentionBatch
	to := w.mentioned
	for i := range docs {
		d := &docs[i]
		if d.first <= to {
			continue
		}
		if d.first != to+1 || d.first >= w.run.Iterations {
			break
		}
		b.add(d.first, iterationNames{acts: d.acts, changed: d.changed, shown: d.shown, args: d.args, failed: d.failed})
		to = d.first
	}
	if to == w.mentioned {
		return nil
	}
	if err := b.save(ctx, &w.r.store, w.run.ID, w.mentioned, to); err != nil {
		return err
	}
	w.mentioned = to
	return nil
}

// write indexes iterations w.from to the run's last. Documents are built
// one batch ahead, and up to putAhead batches are added at once; a batch's
// position is recorded (see Recaller.reached) once it and every batch
// before it are in the index. It returns after every goroutine it started
// has stopped.
func (w *iterationWriter) write(ctx context.Context) error {
	bctx, cancel := context.WithCancel(ctx)
	batches := w.r.iterationDocs(bctx, w.run.ID, w.from, w.run.Iterations)
	type added struct {
		persisted <-chan error
		err       error
	}
	type pending struct {
		b    docBatch
		done chan added
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
	// seq is the sequence number a batch's position records: the run's
	// last once the batch reaches its last iteration.
	seq := func(b docBatch) int64 {
		if b.last == w.run.Iterations {
			return w.run.LastSeq
		}
		return w.seq
	}
	// finish waits for the oldest batch in flight and records its position.
	finish := func() error {
		p := queue[0]
		queue = queue[1:]
		a := <-p.done
		if a.err != nil {
			return a.err
		}
		w.written += len(p.b.docs)
		w.iter, w.seq = p.b.last, seq(p.b)
		pos := position{run: w.run.ID, iter: w.iter, seq: w.seq, block: w.block}
		if err := w.r.reached(ctx, w.ix, a.persisted, pos, putAhead); err != nil {
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
		if err := w.mentionDocs(ctx, b.docs); err != nil {
			return err
		}
		// Batches in flight together enter the index in any order, and
		// each records its position there: the last waits for the others,
		// so that the index's record ends at the run's position.
		for b.last == w.run.Iterations && len(queue) > 0 {
			if err := finish(); err != nil {
				return err
			}
		}
		p := pending{b: b, done: make(chan added, 1)}
		pos := position{run: w.run.ID, iter: b.last, seq: seq(b), block: w.block}
		go func() {
			persisted, err := w.ix.add(ctx, p.b.docs, &pos)
			p.done <- added{persisted, err}
		}()
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

// buildDocs builds the documents of its, on every processor: building
// (entities, failure text) was a quarter of a catch-up's work, in one
// goroutine, while the index's own work spreads over all.
func buildDocs(its []*journal.Iteration) []document {
	docs := make([]document, len(its))
	workers := min(runtime.GOMAXPROCS(0), max(len(its)/32, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(its); i += workers {
				docs[i] = iterationDoc(its[i])
			}
		})
	}
	wg.Wait()
	return docs
}

// iterationDocs reads iterations from..to of a run and builds their
// documents, indexBatch at a time, in a goroutine. The channel is closed
// after the last batch, after an error (sent as the last batch), or once
// ctx is done.
func (r *Recaller) iterationDocs(ctx context.Context, run string, from, to int) <-chan docBatch {
	out := make(chan docBatch, 1)
	go func() {
		defer close(out)
		size := indexBatch
		if to-from+1 >= bulkFrom {
			size = bulkBatch
		}
		for a := from; a <= to; a += size {
			b := docBatch{last: min(to, a+size-1)}
			its, err := r.journal.Iterations(ctx, run, a, b.last, journal.ReadOptions{})
			if b.err = err; err == nil {
				b.docs = buildDocs(its)
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

// Forget drops what the local index holds of a run, so that the next
// catch-up indexes the run from the database afresh: after the run was
// replaced (memory.Copy with Replace), documents it no longer has would
// still come back as hits. With an index per run (PostgreSQL) it removes
// the run's index; else it deletes the run's documents from the shared one.
// The database's positions are the caller's to clear.
func (r *Recaller) Forget(ctx context.Context, run string) error {
	if r.perRun {
		if err := r.useRun(ctx, run); err != nil {
			return err
		}
		if err := r.closeIndex(ctx, false); err != nil {
			return err
		}
		if err := os.RemoveAll(r.dir); err != nil {
			return fmt.Errorf("remove the recall index of run %s: %w", run, err)
		}
		// Removed on purpose: the next open makes a new index without
		// warning that the old one was lost.
		return r.store.forget(ctx, run, r.workerOf(run))
	}
	ix, err := r.index(ctx, run)
	if err != nil {
		return err
	}
	return ix.dropRun(ctx, run)
}

// aheadOfDatabase reports whether the index's own position for run, own,
// is past anything the database holds of the run, and the run's newest
// iteration as the database has it. Only a position past the one the
// database records (st) is looked at: as a crash between the index's
// write and that record leaves it, or a database put back to an older
// copy beside its index. After a crash the index is ahead of the record
// but not of the run, and that is not this; after a restore it may hold
// iterations past the run's newest, or blocks the database never wrote.
// The run is read again for its newest iteration: the caller's copy may
// be older than what another process appended and indexed since, while
// the index, open here, cannot move. Block row ids go on from the
// highest one, so a restored database that folded past the index's last
// block again before this check passes it, and the old blocks it did not
// make again stay in the index until delta memory reindex.
func (r *Recaller) aheadOfDatabase(ctx context.Context, run journal.Run, st state, own position) (bool, int, error) {
	newest := run.Iterations
	if own.iter > st.IndexedIter && own.iter > newest {
		fresh, err := r.journal.Run(ctx, run.ID)
		if err != nil {
			return false, 0, err
		}
		if newest = fresh.Iterations; own.iter > newest {
			return true, newest, nil
		}
	}
	if own.block <= st.IndexedBlock || r.folds == nil {
		return false, newest, nil
	}
	bs, _, err := r.folds.BlocksAfter(ctx, run.ID, own.block-1, 1)
	return err == nil && len(bs) == 0, newest, err
}

// restart forgets what the index and the database hold of run's indexing,
// so that the next catch-up starts from its first iteration, and returns
// the index to write to. With an index shared by runs, the database's
// record goes first and the index's own position last (dropRun), so that
// a failure half way is met again at the next catch-up; an index of its
// own goes whole (Forget).
func (r *Recaller) restart(ctx context.Context, ix *index, run string) (*index, error) {
	if r.perRun {
		if err := r.Forget(ctx, run); err != nil {
			return nil, err
		}
		return r.index(ctx, run)
	}
	if err := r.store.forgetPosition(ctx, run, r.workerOf(run)); err != nil {
		return nil, err
	}
	return ix, ix.dropRun(ctx, run)
}
