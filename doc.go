// Package memory is delta-memory's Go API: a memory-folding engine for a
// long-running LLM agent. It keeps the agent's whole journal in SQLite,
// folds older iterations into coarser summaries, recalls detail on demand,
// and composes the context window for the next model call under a token
// budget. The delta CLI is a thin layer over this package.
//
// A workspace is one SQLite file, with its recall index beside it:
//
//	eng, err := memory.Open(ctx, memory.Config{DBPath: "agent/.delta/memory.db", Budget: 8000})
//	if err != nil { ... }
//	defer eng.Close()
//
// Events reach the journal with Append (events in memory, Delta's envelope
// {seq, timestamp, type, payload}), Import (a Delta journal.jsonl or an
// OpenAI transcript) or Sync (the new lines of a journal, as Delta
// Engine's computed_file generator does). Each of them then runs the fold
// scheduler and the recall triggers. Context compiles the window: Markdown
// for a system block, Messages for an OpenAI chat call, or the whole
// Window as JSON. Retrieve recalls by keyword into the next window;
// Bookmark, Milestone, FoldIterations and Unfold steer the folding by hand.
//
// # Stability
//
// These names are stable: they keep their meaning and signature across
// minor versions. Open, Config (DBPath, MustExist, ConfigFile, Budget,
// Tokenizer, Warn, LLM, LockWait), DefaultDBPath, IndexPath, ErrNoDatabase,
// ErrLocked, Window, Step, ContextOptions, SyncOptions, SyncResult,
// Retrieved, and the Engine methods Close, Path, ResolveRun, Append,
// Import, Update, Sync, Context, SubtaskContext, Retrieve, Bookmark,
// Unbookmark, Bookmarks, Milestone, FoldIterations and Unfold. The types
// they take from the journal, fold and recall packages (journal.Event,
// journal.Run, fold.Block, recall.Query) are stable in the fields those
// methods use.
//
// The packages window, eval and simulate can be imported too. In window,
// Context (which Window names), Options, Partition and Section are stable;
// eval and simulate are tools, and their APIs may change.
//
// Everything else exported here serves the delta command and may change:
// Engine's fields (Journal, Fold, Folder, Scheduler, Recall, LLM), OpenOn,
// Leave, Release, Discard, the settings plumbing (FileConfig, Settings,
// ResolveSettings, LLMSettings, ResolveLLM), and the sync bookkeeping
// (LastSync, RecordSync, IndexIfDue, UpgradeWaiting, Breaker).
package memory
