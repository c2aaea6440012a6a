package memory

import (
	"context"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// FillInTurn makes e's fills render each batch of hits before ranking the
// next, as they did before the batches overlapped the ranking.
func FillInTurn(e *Engine, on bool) { e.fillInTurn = on }

// FillRenderAll makes e's fills render every hit offered, long ones
// before their due too, as they did before long hits waited unrendered.
func FillRenderAll(e *Engine, on bool) { e.fillRenderAll = on }

// FillHits runs the fill of q over run, fitted to room, and returns its
// hits and how many ranges it rendered.
func FillHits(ctx context.Context, e *Engine, run journal.Run, q recall.Query, room int) ([]recall.Recall, int, error) {
	c, err := e.fillHits(ctx, run, q, room)
	return c.hits, c.rendered, err
}

// Recalled returns the recalls e offers the window of run, as Context
// builds it (nothing kept).
func Recalled(ctx context.Context, e *Engine, run journal.Run) ([]window.Recalled, error) {
	layoutFold, err := e.Fold.LayoutFold(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	recalls, _, _, err := e.recalled(ctx, run, false, layoutFold)
	return recalls, err
}
