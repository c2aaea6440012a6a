package fold

import (
	"context"
	"errors"
	"fmt"
)

// MakeRoom folds the oldest iterations shown in full, short of the newest
// KeepRecent, until the folds have saved at least tokens: a recall that
// wants more of the window than the other partitions leave puts the window
// under pressure, and this is that pressure's fold (trigger pressure, level
// L1). A fold is the one moment the window's prefix may change, so the
// room is made here, once, rather than taken from Working at every render.
// It returns the folds made; none when nothing can be folded.
func (s *Scheduler) MakeRoom(ctx context.Context, runID string, tokens int) (StepResult, error) {
	var res StepResult
	if tokens <= 0 {
		return res, nil
	}
	run, err := s.Journal.Run(ctx, runID)
	if err != nil {
		return res, err
	}
	mark, err := s.Store.lastBlockPos(ctx)
	if err != nil {
		return res, err
	}
	_, err = s.foldOldest(ctx, run, run.Iterations-s.Config.KeepRecent, L1, TriggerPressure, tokens)
	if err != nil && !errors.Is(err, ErrFoldRace) {
		return res, fmt.Errorf("fold for room in run %s: %w", runID, err)
	}
	// The new blocks may overflow Short-term: cascade as a step would.
	u, err := s.usage(ctx, run)
	if err != nil {
		return res, err
	}
	if u.shortTerm > s.Config.ShortTermBudget() || u.longTerm > s.Config.LongTermBudget() {
		st, err := loadState(ctx, s.Store.db.Read, runID)
		if err != nil {
			return res, err
		}
		if _, err := s.cascade(ctx, run, st.ChapterStart); err != nil && !errors.Is(err, ErrFoldRace) {
			return res, fmt.Errorf("cascade after folding for room in run %s: %w", runID, err)
		}
	}
	return s.finish(ctx, run, res, mark)
}
