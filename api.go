package memory

import (
	"context"
	"fmt"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// Window is a compiled context window, as Context, SubtaskContext and Sync
// return it. Markdown gives the text for a system block, the Messages field
// the OpenAI chat messages (every tool call next to its result), and
// encoding/json the inspection shape that `delta memory context --format
// json` prints. The type is defined in package window as Context, which
// callers may import and use directly; the alias stays, as part of the
// stable API.
type Window = window.Context

// ErrLocked is returned, wrapped, by Sync, Import and Append when another
// process kept the database's lock longer than Config.LockWait.
var ErrLocked = sqldb.ErrLocked

// Append stores events for a run in memory, as Import does for a file,
// then brings the run up to date: the fold scheduler, the recall index and
// the recall triggers. The run is created if it is new. Events whose seq is
// stored already are skipped, so sending the same events again is
// harmless; seqs must increase within one call, or nothing is stored and
// the error wraps journal.ErrSeqOrder. Like Import, it waits up to
// Config.LockWait for another process's sync or import of the database
// (ErrLocked after that).
func (e *Engine) Append(ctx context.Context, runID string, events ...journal.Event) (journal.AppendResult, Step, error) {
	lock, err := e.exclusive(ctx, runID)
	if err != nil {
		return journal.AppendResult{}, Step{}, err
	}
	defer lock.Release()
	res, err := e.Journal.Append(ctx, runID, journal.FormatDelta, events)
	if err != nil || res.Run == "" || res.LastSeq == 0 {
		return res, Step{}, err
	}
	if res.Added > 0 {
		e.Recall.Preload(ctx, journal.Run{ID: res.Run, Iterations: res.Iterations, LastSeq: res.LastSeq})
	}
	step, err := e.Update(ctx, res.Run)
	return res, step, err
}

// Bookmark marks iteration n of run as one to keep: it stays at full detail
// (within the pinned cap), and note, when not empty, shows in the Dynamic
// partition. Bookmarking an iteration again replaces its note. It fails
// when n is not an iteration of the run.
func (e *Engine) Bookmark(ctx context.Context, run journal.Run, n int, note string) error {
	return e.Fold.AddBookmark(ctx, run, n, note)
}

// Unbookmark removes the bookmark on iteration n of run and reports whether
// there was one.
func (e *Engine) Unbookmark(ctx context.Context, run journal.Run, n int) (bool, error) {
	return e.Fold.RemoveBookmark(ctx, run, n)
}

// Bookmarks lists the bookmarks of run, by iteration.
func (e *Engine) Bookmarks(ctx context.Context, run journal.Run) ([]fold.Bookmark, error) {
	return e.Fold.Bookmarks(ctx, run.ID)
}

// FoldIterations folds iterations first to last of run into one block at level
// (fold.L2, fold.L3 or fold.L4), as `delta memory fold` does: the fold is
// recorded as manual, and a range already folded at that level or coarser
// is refused. A range that cuts a visible block is widened to the block's
// boundaries; the returned block says which range it covers. When another
// process folds part of the range meanwhile, the fold is refused with an
// error wrapping fold.ErrFoldRace, and can be run again.
func (e *Engine) FoldIterations(ctx context.Context, run journal.Run, first, last, level int) (*fold.Block, error) {
	if level < fold.L2 || level > fold.L4 {
		return nil, fmt.Errorf("fold iterations %d-%d: level %d: want %d, %d or %d", first, last, level, fold.L2, fold.L3, fold.L4)
	}
	return e.Folder.Fold(ctx, run, fold.FoldOptions{First: first, Last: last, Level: level, Trigger: fold.TriggerManual, Strict: true})
}

// Unfold stops showing the folded block named id (such as "L2-51-60"): the
// blocks it absorbed, or its iterations in full, show again. The block is
// kept, marked unfolded, and the change is logged. It returns the block.
func (e *Engine) Unfold(ctx context.Context, run journal.Run, id string) (*fold.Block, error) {
	return e.Folder.Unfold(ctx, run, id)
}
