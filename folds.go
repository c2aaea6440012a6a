package memory

import (
	"context"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/recall"
)

// foldView shows recall the folds, over the fold store.
type foldView struct {
	store  *fold.Store
	folder *fold.Folder
}

var _ recall.Folds = foldView{}

func (v foldView) BlocksAfter(ctx context.Context, run string, after int64, limit int) ([]recall.BlockDoc, int64, error) {
	bs, pos, err := v.store.BlocksAfter(ctx, run, after, limit)
	if err != nil || len(bs) == 0 {
		return nil, after, err
	}
	docs := make([]recall.BlockDoc, len(bs))
	for i, b := range bs {
		docs[i] = recall.BlockDoc{
			ID: b.ID, Level: b.Level, First: b.First, Last: b.Last,
			Title: b.Title, Content: b.Content, Outcome: b.Outcome,
			Keywords: b.Keywords, Entities: b.Entities, StateChanges: b.StateChanges, Errors: b.Errors,
		}
	}
	return docs, pos[len(pos)-1], nil
}

func (v foldView) Covering(ctx context.Context, run string, n int) (string, float64, bool, error) {
	return v.store.Covering(ctx, run, n)
}

func (v foldView) Noted(ctx context.Context, run string, numbers []int) (map[int]recall.Noted, error) {
	sizes, err := v.store.SizesAt(ctx, run, numbers)
	if err != nil {
		return nil, err
	}
	out := make(map[int]recall.Noted, len(sizes))
	for _, z := range sizes {
		out[z.Number] = recall.Noted{Tokens: z.L0Tokens, Folded: z.Folded}
	}
	return out, nil
}

func (v foldView) InFull(ctx context.Context, run string, first, last int) (int, error) {
	return v.store.InFull(ctx, run, first, last)
}

func (v foldView) Touch(ctx context.Context, run string, first, last, now int) error {
	return v.folder.Touch(ctx, run, first, last, now)
}

func (v foldView) WorkingFrom(ctx context.Context, run string) (int, error) {
	return v.store.WorkingFrom(ctx, run)
}

func (v foldView) Changes(ctx context.Context, run, entity string, before int) (int, int, error) {
	last, ok, err := v.store.LastChange(ctx, run, entity, before)
	if err != nil || !ok {
		return 0, 0, err
	}
	made, ok, err := v.store.Making(ctx, run, entity, before)
	if err != nil || !ok {
		return last.Iteration, 0, err
	}
	return last.Iteration, made.Iteration, nil
}
