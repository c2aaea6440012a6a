package fold

import (
	"context"
	"sync"

	"github.com/delta-memory/delta-memory/journal"
)

// foldAll folds independent ranges: disjoint, each over iterations no
// visible block covers, at L1 or L2, so that no fold changes what another
// reads. It plans them in order, makes their summaries concurrently (up to
// Concurrency at once: a model's latency is the cost of a fold), then writes
// each in its own transaction, in order, exactly as folding them one by one
// would. It stops at the first error and returns the blocks written before
// it.
func (f *Folder) foldAll(ctx context.Context, run journal.Run, opts []FoldOptions) ([]*Block, error) {
	var plans []*foldPlan
	var planErr error
	for _, o := range opts {
		p, err := f.plan(ctx, run, o)
		if err != nil {
			planErr = err
			break
		}
		plans = append(plans, p)
	}
	sums, errs := f.summarizeAll(ctx, plans)
	var out []*Block
	for i, p := range plans {
		if p.done != nil {
			out = append(out, p.done)
			continue
		}
		if errs[i] != nil {
			return out, errs[i]
		}
		b, err := f.commit(ctx, run, p, sums[i])
		if err != nil {
			return out, err
		}
		out = append(out, b)
	}
	return out, planErr
}

// summarizeAll summarizes the plans' requests, up to Concurrency at once.
func (f *Folder) summarizeAll(ctx context.Context, plans []*foldPlan) ([]Summary, []error) {
	sums := make([]Summary, len(plans))
	errs := make([]error, len(plans))
	limit := max(1, f.Concurrency)
	if limit == 1 || len(plans) < 2 {
		for i, p := range plans {
			if p.done == nil {
				sums[i], errs[i] = f.summarize(ctx, p.req)
			}
		}
		return sums, errs
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, p := range plans {
		if p.done != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sums[i], errs[i] = f.summarize(ctx, p.req)
		}()
	}
	wg.Wait()
	return sums, errs
}
