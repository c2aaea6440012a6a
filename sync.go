package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// DefaultKeepRecent is how many newest iterations sync leaves to Delta
// Engine's own journal source (its max_iterations).
const DefaultKeepRecent = 5

// DefaultDeadline bounds a sync's wait for the model's summaries, well
// under the 30 s a Delta Engine generator is given: past it, the memory is
// written from what is ready, extractive summaries standing in for those
// still awaited.
const DefaultDeadline = 10 * time.Second

// deadlineReserve is the part of a sync's deadline kept for what follows
// the model's summaries: compiling the window and writing it.
const deadlineReserve = 500 * time.Millisecond

// SyncOptions say what Sync reads and what it leaves out.
type SyncOptions struct {
	// Journal is the Delta journal.jsonl to import from.
	Journal string
	// RunID overrides the run id the journal names.
	RunID string
	// KeepRecent newest iterations are left out of Working: the agent
	// runtime shows them itself.
	KeepRecent int
	// Deadline, when not zero, is when the memory must be written: calls
	// to the model stop in time for it (deadlineReserve before). Zero
	// means DefaultDeadline from the start of Sync.
	Deadline time.Time
}

// SyncResult is what one Sync did and the Markdown it made.
type SyncResult struct {
	Import journal.ImportResult
	Step   Step
	// Warnings say what the sync could not do but did without (the
	// model's summaries it did not wait for); each is one line.
	Warnings []string
	// Context is the compiled window, nil when the journal holds no
	// events yet.
	Context *window.Context
	// Markdown is the text for the computed file; never empty.
	Markdown string
}

// Sync is one call of the computed_file generator: it imports the lines
// appended to the journal since the last call, runs the fold scheduler and
// the recall triggers, and compiles the window without the KeepRecent
// newest iterations. A missing or empty journal is not an error: the
// result then holds a short Markdown note and no Context.
//
// Its cost follows the new lines and the window, not the run's length:
// the import seeks to its stored cursor, and the window reads only what it
// shows.
func (e *Engine) Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	var res SyncResult
	if opts.Deadline.IsZero() {
		opts.Deadline = time.Now().Add(DefaultDeadline)
	}
	st, err := os.Stat(opts.Journal)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return e.syncStored(ctx, opts)
	case err != nil:
		return res, fmt.Errorf("sync: %w", err)
	case st.IsDir():
		return res, fmt.Errorf("sync: %s is a directory, not a journal.jsonl", opts.Journal)
	case st.Size() == 0:
		res.Markdown = emptyMemory(fmt.Sprintf("the journal at %s has no events yet", opts.Journal))
		return res, nil
	}
	// The lock is held until the index is flushed: the next sync then
	// starts from saved positions, and compiles after this one's recalls.
	lock, err := e.exclusive(ctx, opts.RunID)
	if err != nil {
		return res, err
	}
	defer lock.Release()
	// The agent waits on a sync: its folds never wait for the model. They
	// are made extractive, and upgraded until the deadline (upgrade).
	defer func(d bool) { e.Folder.Defer = d }(e.Folder.Defer)
	e.Folder.Defer = e.LLM != nil
	res.Import, res.Step, err = e.importLocked(ctx, opts.Journal, journal.ImportOptions{RunID: opts.RunID, Format: journal.FormatDelta},
		opts.Deadline.Add(-deadlineReserve))
	if err != nil {
		return res, err
	}
	if w := res.Step.Upgrade.Warning(e.LLMSettings.BaseURLOrDefault()); w != "" {
		res.Warnings = append(res.Warnings, w)
		if e.warn != nil {
			e.warn(w)
		}
	}
	if !hasEvents(res.Import) {
		res.Markdown = emptyMemory(fmt.Sprintf("the journal at %s has no complete events yet", opts.Journal))
		return res, nil
	}
	run, err := e.Journal.Run(ctx, res.Import.Run)
	if err != nil {
		return res, err
	}
	res.Context, err = e.Context(ctx, run, ContextOptions{Native: max(0, opts.KeepRecent), KeepRenders: true})
	if err != nil {
		return res, err
	}
	// The step's index batches went to disk while the window was compiled.
	if err := e.Recall.Flush(ctx); err != nil {
		return res, err
	}
	res.Markdown = res.Context.Markdown()
	if res.Markdown == "" {
		res.Markdown = emptyMemory("nothing to show yet")
	}
	return res, nil
}

// syncStored is a sync whose journal file is missing. A run the database
// holds is written from there, as it stood at the last sync, with a
// warning: a journal moved or deleted must not blank the agent's memory.
// Only a run the database does not know gets the "no journal yet" note.
func (e *Engine) syncStored(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	var res SyncResult
	run, err := e.Journal.Run(ctx, opts.RunID)
	if opts.RunID == "" || errors.Is(err, journal.ErrRunNotFound) {
		res.Markdown = emptyMemory(fmt.Sprintf("no journal yet at %s", opts.Journal))
		return res, nil
	}
	if err != nil {
		return res, err
	}
	w := fmt.Sprintf("the journal %s is missing; the memory is written from the database (run %s as of its last sync, %d iterations). Point --journal at the run's journal, or check DELTA_CWD and DELTA_RUN_ID",
		opts.Journal, run.ID, run.Iterations)
	res.Warnings = append(res.Warnings, w)
	if e.warn != nil {
		e.warn(w)
	}
	res.Import = journal.ImportResult{Run: run.ID, Iterations: run.Iterations, LastSeq: run.LastSeq}
	if res.Context, err = e.Context(ctx, run, ContextOptions{Native: max(0, opts.KeepRecent)}); err != nil {
		return res, err
	}
	res.Markdown = res.Context.Markdown()
	if res.Markdown == "" {
		res.Markdown = emptyMemory("nothing to show yet")
	}
	return res, nil
}

// IndexIfDue catches the recall index up with the run, under the lock
// syncs take, when it lacks recall.index_every-early iterations (see
// recall.Recaller.CatchUpIfDue), and flushes it. The resident server calls
// it with early 1 after answering a sync, so that the catch-up a sync
// makes once in recall.index_every iterations is not on the agent's path.
// It reports whether it indexed.
func (e *Engine) IndexIfDue(ctx context.Context, runID string, early int) (bool, error) {
	lock, err := e.exclusive(ctx, runID)
	if err != nil {
		return false, err
	}
	defer lock.Release()
	run, err := e.Journal.Run(ctx, runID)
	if err != nil {
		return false, err
	}
	did, err := e.Recall.CatchUpIfDue(ctx, run, early)
	if err != nil {
		return false, err
	}
	return did, e.Recall.Flush(ctx)
}

// exclusive takes the lock of a run's syncs and imports, so that two syncs
// of one run go one after the other: each sees the other's folds and
// recalls instead of racing them (sqldb.DB.LockRun: the lock file beside a
// SQLite database, whatever the run; PostgreSQL's advisory lock of the
// run, or of the whole database when run is "", not known before the file
// is read). It waits up to Config.LockWait, then fails with
// sqldb.ErrLocked.
func (e *Engine) exclusive(ctx context.Context, run string) (*sqldb.Lock, error) {
	return e.db.LockRun(ctx, run, e.lockWait)
}

// emptyMemory is the computed file written before there is anything to
// fold: valid Markdown that says why it is short.
func emptyMemory(why string) string {
	return "## Memory\n\n_delta-memory: " + why + "._\n"
}

// JournalPath is where Delta Engine writes a run's journal in a workspace.
func JournalPath(cwd, runID string) string {
	return filepath.Join(cwd, ".delta", runID, "journal.jsonl")
}
