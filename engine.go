package memory

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// ErrNoDatabase is returned by Open with MustExist when there is no file yet.
var ErrNoDatabase = errors.New("no memory database")

// Config says where the database is and how to fold.
type Config struct {
	// DBPath is the SQLite file, or a postgres:// or postgresql:// URL for
	// a PostgreSQL database shared by a fleet of workers. Empty means
	// DefaultDBPath(os.Getenv).
	DBPath string
	// IndexDir is where the recall index lives. Empty means beside a
	// SQLite file (IndexPath), and for PostgreSQL a directory of this
	// worker's cache, one per database (WorkerIndexPath): the index is
	// derived data, local to each worker.
	IndexDir string
	// MustExist makes Open fail with ErrNoDatabase instead of creating the
	// file, for commands that only read. A PostgreSQL database must exist
	// anyway; Open creates its tables.
	MustExist bool
	// ConfigFile is a YAML or JSON file of fold settings. Empty means
	// memory.yaml beside the database, if there is one.
	ConfigFile string
	// Budget overrides the configured token budget when > 0.
	Budget int
	// Tokenizer names the BPE encoding ("" means the configured one, else
	// o200k_base).
	Tokenizer string
	// Warn receives warnings that are not failures (an index rebuilt after
	// it was lost). Nil drops them.
	Warn func(string) `json:"-"`
	// LLM chooses and configures the summarizer.
	LLM LLMConfig
	// Recall, when set, changes the recall settings after the settings
	// file: an eval tries several that way (eval.Candidates).
	Recall func(*recall.Config) `json:"-"`
	// OneConnection opens the database with one connection for reads and
	// writes (see sqldb.Options.OneConnection): for a short process
	// with one flow of work, such as a sync.
	OneConnection bool
	// LockWait is how long Sync and Import wait for another process's
	// sync or import of the same database; 0 means
	// sqldb.DefaultBusyTimeout, as long as SQLite waits for a writer.
	LockWait time.Duration
}

// Engine is an open delta-memory database and what works on it.
type Engine struct {
	db        *sqldb.DB
	Journal   *journal.Store
	Fold      *fold.Store
	Tokenizer scoring.Tokenizer
	Config    fold.Config
	Scheduler *fold.Scheduler
	Folder    *fold.Folder
	// Recall indexes the runs and recalls from them; its index opens on
	// first use.
	Recall *recall.Recaller

	l0 l0Cache
	// fillInTurn makes a fill render each batch of hits before it goes
	// on ranking (packer.render), as a test's reference.
	fillInTurn bool
	// fillRenderAll makes a fill render every hit it is offered, long
	// ones before their due too (filldefer.go), as a test's reference.
	fillRenderAll bool
	lockWait      time.Duration
	warn          func(string)
	held          atomic.Int64
	// made is what Open created, for Discard; closed is set by Discard,
	// after which Close and Leave do nothing.
	made   created
	closed bool
	// LLMSettings are the summarizer settings in force; LLM is the LLM
	// summarizer, nil when the extractive one is used.
	LLMSettings LLMSettings
	LLM         *fold.LLMSummarizer
}

// DefaultDBPath is $DELTA_CWD/.delta/memory.db, or ./.delta/memory.db when
// DELTA_CWD is unset. getenv is injected so tests need not touch the process
// environment.
func DefaultDBPath(getenv func(string) string) string {
	if cwd := getenv("DELTA_CWD"); cwd != "" {
		return filepath.Join(cwd, ".delta", "memory.db")
	}
	return filepath.Join(".delta", "memory.db")
}

// Open opens the engine on cfg.DBPath, creating and migrating the database
// as needed.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	path := cfg.DBPath
	if path == "" {
		path = DefaultDBPath(os.Getenv)
	}
	p, err := prepare(path, cfg)
	if err != nil {
		return nil, err
	}
	pg := sqldb.IsPostgres(path)
	if cfg.MustExist && !pg {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s", ErrNoDatabase, path)
		}
	}
	var made created
	if !pg {
		made = plan(path)
	}
	db, err := sqldb.Open(ctx, path, sqldb.Options{OneConnection: cfg.OneConnection})
	if err != nil {
		made.remove()
		return nil, err
	}
	e := p.assemble(db, cfg)
	e.made = made
	return e, nil
}

// OpenOn is Open on a database its caller keeps open across engines, as
// the resident sync process does: the engine reads its settings afresh,
// and Release, not Close, ends it, leaving db open. cfg.DBPath must name
// db's file (or URL); MustExist and OneConnection do not apply.
func OpenOn(db *sqldb.DB, cfg Config) (*Engine, error) {
	if db.Dialect == sqldb.Postgres {
		if cfg.DBPath != "" && sqldb.Redact(cfg.DBPath) != db.Path {
			return nil, fmt.Errorf("open engine: settings name %s, the open database is %s", sqldb.Redact(cfg.DBPath), db.Path)
		}
	} else if cfg.DBPath != "" && filepath.Clean(cfg.DBPath) != filepath.Clean(db.Path) {
		return nil, fmt.Errorf("open engine: settings name %s, the open database is %s", cfg.DBPath, db.Path)
	}
	p, err := prepare(db.Path, cfg)
	if err != nil {
		return nil, err
	}
	return p.assemble(db, cfg), nil
}

// prepared is what Open resolves before it touches the database.
type prepared struct {
	file   FileConfig
	fold   fold.Config
	recall recall.Config
	tok    scoring.Tokenizer
	llm    LLMSettings
}

// prepare reads the settings file and resolves the settings in force. A
// setting from the file that does not work is a *ConfigError naming the
// file.
func prepare(path string, cfg Config) (prepared, error) {
	var p prepared
	fc, err := loadSettings(path, cfg.ConfigFile)
	if err != nil {
		return p, err
	}
	p.file = fc
	p.fold = fc.FoldConfig()
	if cfg.Budget > 0 {
		p.fold.Budget = cfg.Budget
	}
	if err := p.fold.Validate(); err != nil {
		return p, fc.blame(fmt.Errorf("fold settings: %w", err))
	}
	p.recall = fc.RecallConfig()
	if err := p.recall.Validate(); err != nil {
		return p, fc.blame(err)
	}
	if cfg.Recall != nil {
		cfg.Recall(&p.recall)
		if err := p.recall.Validate(); err != nil {
			return p, fmt.Errorf("recall settings: %w", err)
		}
	}
	tokName := cfg.Tokenizer
	if tokName == "" {
		tokName = fc.Tokenizer
	}
	if p.tok, err = scoring.NewTokenizer(tokName); err != nil {
		if cfg.Tokenizer == "" {
			err = fc.blame(err)
		}
		return p, err
	}
	p.llm, err = ResolveLLM(cfg.LLM, fc)
	return p, err
}

// Settings are the settings in force for a Config: DESIGN.md's defaults,
// then the settings file, then cfg's own fields (flags and environment).
type Settings struct {
	// File is the settings file merged over the defaults; File.File is
	// "" when there was none.
	File   FileConfig
	Fold   fold.Config
	Recall recall.Config
	// Tokenizer is the BPE encoding's name.
	Tokenizer string
	LLM       LLMSettings
}

// ResolveSettings resolves the settings Open would use, without opening
// the database. Its errors are Open's: a *ConfigError names the file.
func ResolveSettings(cfg Config) (Settings, error) {
	path := cmp.Or(cfg.DBPath, DefaultDBPath(os.Getenv))
	p, err := prepare(path, cfg)
	if err != nil {
		return Settings{}, err
	}
	return Settings{File: p.file, Fold: p.fold, Recall: p.recall, Tokenizer: p.tok.Name(), LLM: p.llm}, nil
}

// assemble builds the engine's parts over an open database.
func (p prepared) assemble(db *sqldb.DB, cfg Config) *Engine {
	e := &Engine{db: db, Journal: journal.NewStore(db), Fold: fold.NewStore(db), Tokenizer: p.tok, Config: p.fold, LLMSettings: p.llm, lockWait: cfg.LockWait}
	if e.lockWait <= 0 {
		e.lockWait = sqldb.DefaultBusyTimeout
	}
	e.Folder = &fold.Folder{Journal: e.Journal, Store: e.Fold, Tokenizer: p.tok, Summarizer: fold.Extractive{}, Config: p.fold}
	if p.llm.Summarizer == SummarizerLLM {
		e.LLM = newLLM(p.llm, cfg.LLM, p.tok)
		e.Folder.Summarizer, e.Folder.Concurrency = guarded{LLMSummarizer: e.LLM, br: e.breaker(), held: &e.held}, p.llm.Concurrency
	}
	e.Scheduler = &fold.Scheduler{Folder: e.Folder}
	meter := &window.EndsMeter{Journal: e.Journal, Fold: e.Fold, Tokenizer: e.Tokenizer}
	e.Scheduler.MeasureEnds = func(ctx context.Context, run journal.Run) (fold.Ends, error) {
		return meter.Measure(ctx, run, e.Folder.Config)
	}
	dir := cfg.IndexDir
	switch {
	case dir != "":
	case db.Dialect == sqldb.Postgres:
		dir = WorkerIndexPath(db.Path)
	default:
		dir = IndexPath(db.Path)
	}
	e.Recall = recall.New(db, e.Journal, foldView{store: e.Fold, folder: e.Folder}, dir, p.recall)
	e.Recall.Warn, e.warn = cfg.Warn, cfg.Warn
	return e
}

// SettingsPath is where the settings of the database at dbPath are read
// from when no file is named: memory.yaml beside it, whether or not it
// exists. A PostgreSQL database has nothing beside it: "".
func SettingsPath(dbPath string) string {
	if sqldb.IsPostgres(dbPath) {
		return ""
	}
	return filepath.Join(filepath.Dir(dbPath), "memory.yaml")
}

// loadSettings reads the explicit config file, or the one beside the
// database (SettingsPath) when there is one; else the defaults hold.
func loadSettings(dbPath, file string) (FileConfig, error) {
	if file != "" {
		return LoadFileConfig(file, true)
	}
	if p := SettingsPath(dbPath); p != "" {
		return LoadFileConfig(p, false)
	}
	return DefaultFileConfig(), nil
}

// EnvIndexHome names the directory under which a worker keeps the recall
// indexes of the PostgreSQL databases it serves (WorkerIndexPath).
const EnvIndexHome = "DELTA_MEMORY_INDEX_HOME"

// WorkerIndexPath is where this worker keeps the recall index of the
// PostgreSQL database url names (password left out): under
// $DELTA_MEMORY_INDEX_HOME, else the user's cache directory (else the
// temporary one) in delta-memory/, named after a hash of the URL, so that
// one worker can serve several databases.
func WorkerIndexPath(url string) string {
	base := os.Getenv(EnvIndexHome)
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		base = filepath.Join(cache, "delta-memory")
	}
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(base, "index-"+hex.EncodeToString(sum[:8])+".bleve")
}

// IndexPath is where the recall index of the database at dbPath lives:
// beside it, named after it (memory.db → memory.bleve).
func IndexPath(dbPath string) string {
	return strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + ".bleve"
}

// Close closes the index and the database.
func (e *Engine) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	return errors.Join(e.Recall.Close(), e.db.Close())
}

// Leave is Close for a process that exits when it returns: it closes the
// index, and leaves the database's connections to the exit, so that SQLite
// does not checkpoint the WAL on the way out (see sqldb.DB.Leave).
func (e *Engine) Leave() error {
	if e.closed {
		return nil
	}
	e.closed = true
	return errors.Join(e.Recall.Close(), e.db.Leave())
}

// Release ends an engine made by OpenOn: it closes the index, so that
// other processes may open it, and leaves the database to its owner.
func (e *Engine) Release() error { return e.Recall.Close() }

// Path returns the database file's path.
func (e *Engine) Path() string { return e.db.Path }

// ResolveRun returns the run named id, or the latest run when id is empty.
func (e *Engine) ResolveRun(ctx context.Context, id string) (journal.Run, error) {
	if id == "" {
		return e.Journal.LatestRun(ctx)
	}
	return e.Journal.Run(ctx, id)
}

// Step says what the pipeline did after an import.
type Step struct {
	Fold   fold.StepResult   `json:"fold"`
	Recall recall.StepResult `json:"recall"`
	// Upgrade is what became of the blocks awaiting the model's summary.
	Upgrade Upgrade `json:"upgrade"`
}

// Import imports a journal file, then brings its run up to date: the fold
// scheduler, the recall index and the recall triggers, so that the context
// is ready. A file with no complete event yet (half a first line) imports
// nothing and updates nothing.
func (e *Engine) Import(ctx context.Context, path string, opts journal.ImportOptions) (journal.ImportResult, Step, error) {
	lock, err := e.exclusive(ctx, opts.RunID)
	if err != nil {
		return journal.ImportResult{}, Step{}, err
	}
	defer lock.Release()
	return e.importLocked(ctx, path, opts, time.Time{})
}

// importLocked is Import, under the process lock, with the model's
// summaries asked for until (no limit when zero).
func (e *Engine) importLocked(ctx context.Context, path string, opts journal.ImportOptions, until time.Time) (journal.ImportResult, Step, error) {
	res, err := e.Journal.ImportFile(ctx, path, opts)
	if err != nil || !hasEvents(res) {
		return res, Step{}, err
	}
	if res.Added > 0 {
		// When the recall step will index the new events, the index opens
		// while the fold scheduler runs.
		e.Recall.Preload(ctx, journal.Run{ID: res.Run, Iterations: res.Iterations, LastSeq: res.LastSeq})
	}
	step, err := e.update(ctx, res.Run, until)
	return res, step, err
}

// hasEvents reports whether an import left its run with any event.
func hasEvents(r journal.ImportResult) bool { return r.Run != "" && r.LastSeq > 0 }

// Update runs the fold scheduler on a run, then catches the recall index
// up and runs the recall triggers on its new iterations.
func (e *Engine) Update(ctx context.Context, runID string) (Step, error) {
	return e.update(ctx, runID, time.Time{})
}

// update is Update, with the model's summaries of the blocks the step
// made (and of those still awaiting one) asked for until until, or with
// no limit but the calls' own timeouts when it is zero.
func (e *Engine) update(ctx context.Context, runID string, until time.Time) (Step, error) {
	var st Step
	var err error
	if st.Fold, err = e.Scheduler.Step(ctx, runID); err != nil {
		return st, fmt.Errorf("fold run %s: %w", runID, err)
	}
	run, err := e.Journal.Run(ctx, runID)
	if err != nil {
		return st, err
	}
	if st.Recall, err = e.Recall.Step(ctx, run); err != nil {
		return st, fmt.Errorf("recall for run %s: %w", runID, err)
	}
	if st.Upgrade, err = e.upgrade(ctx, run, until); err != nil {
		return st, fmt.Errorf("LLM summaries of run %s: %w", runID, err)
	}
	return st, nil
}

// ContextOptions tune Context.
type ContextOptions struct {
	// SystemPrompt replaces the run's system prompt in the Static partition.
	SystemPrompt string
	// Native newest iterations are left out of Working, for a caller that
	// shows them itself (see window.Options.Native).
	Native int
	// KeepRenders keeps, in the database, the renderings of the recalled
	// iterations it renders, for the calls after it (see renders.go):
	// Sync sets it, each sync being a new process. Commands that only
	// read leave it unset, and write nothing.
	KeepRenders bool
}

// Context compiles the run's context window under the configured budget,
// with the active recalls in the Retrieved partition.
func (e *Engine) Context(ctx context.Context, run journal.Run, opts ContextOptions) (*window.Context, error) {
	// Read once for both: the recalls' layout starts there, and the
	// summaries are laid out there (a focused window ignores it).
	summaries, err := e.Fold.LayoutFold(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	recalled, focused, laidOut, err := e.recalled(ctx, run, opts.KeepRenders, summaries)
	if err != nil {
		return nil, err
	}
	return window.Build(ctx, e.Journal, e.Fold, run, window.Options{
		Config: e.Config, Tokenizer: e.Tokenizer, SystemPrompt: opts.SystemPrompt, Recalled: recalled, Native: opts.Native,
		Focus: focused, LaidOut: laidOut, SummariesLaidOut: summaries,
	})
}

// Milestone declares that the run finished a phase: everything since the
// previous milestone becomes one chapter named title.
func (e *Engine) Milestone(ctx context.Context, run journal.Run, title string) (fold.StepResult, error) {
	if err := e.Fold.DeclareMilestone(ctx, run, title); err != nil {
		return fold.StepResult{}, err
	}
	return e.Scheduler.Step(ctx, run.ID)
}
