package memory

import (
	"context"
	"slices"

	"github.com/delta-memory/delta-memory/recall"
)

// A fill renders its hits a batch at a time while the recall goes on
// ranking: reading the turns around the next hits (recall.Around) and
// rendering the batch before them both wait on the database and on the
// tokenizer, and on a machine with two cores they overlap. The batches
// are taken in their order and each hit in its rank, as when rendered in
// turn, so the hits a fill keeps are the same; a batch rendered after the
// room filled is rendered for nothing.

// pendingBatch is a batch of a fill's hits being rendered in the
// background (packer.render): the hits, the ranges not rendered before,
// and, once done is closed, their renderings or the error.
type pendingBatch struct {
	hits   []recall.Recall
	ranges [][2]int
	done   chan struct{}
	rts    []recallRender
	err    error
}

// unrendered returns the ranges of hits, without repeats, that the fill
// has not rendered.
func (p *packer) unrendered(hits []recall.Recall) [][2]int {
	var ranges [][2]int
	for _, h := range hits {
		k := [2]int{h.First, h.Last}
		if _, ok := p.texts[k]; !ok && !slices.Contains(ranges, k) {
			ranges = append(ranges, k)
		}
	}
	return ranges
}

// render starts rendering the queued hits in the background; settle takes
// them. At most one batch renders at a time: offer settles the one before
// first.
func (p *packer) render(ctx context.Context) {
	b := &pendingBatch{hits: p.queue, ranges: p.unrendered(p.deferLong(p.queue)), done: make(chan struct{})}
	p.queue = nil
	p.pending = b
	if len(b.ranges) == 0 {
		close(b.done)
		return
	}
	go func() {
		defer close(b.done)
		b.rts, b.err = p.e.recallTexts(ctx, p.run, b.ranges, true, false, true)
	}()
}

// settle waits for the batch rendering, if any, keeps its renderings and
// takes its hits that fit (takeAll); it reports whether to take more.
func (p *packer) settle(ctx context.Context) (bool, error) {
	b := p.pending
	if b == nil {
		return !p.stopped, nil
	}
	p.pending = nil
	<-b.done
	if b.err != nil {
		return false, b.err
	}
	for i, k := range b.ranges {
		p.texts[k] = b.rts[i]
	}
	return p.takeAll(ctx, b.hits)
}
