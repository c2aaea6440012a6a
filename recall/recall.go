package recall

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// Folds is what recall needs to know of the folds. The engine implements
// it over the fold store; recall does not import fold.
type Folds interface {
	// BlocksAfter returns up to limit blocks of a run made after position
	// after, oldest first, and the position of the last one returned.
	BlocksAfter(ctx context.Context, run string, after int64, limit int) ([]BlockDoc, int64, error)
	// Covering returns the visible block covering iteration n and its
	// importance; folded is false when n shows in full.
	Covering(ctx context.Context, run string, n int) (block string, importance float64, folded bool, err error)
	// Noted returns what the notes say of those of numbers (ascending, no
	// repeats, need not be next to each other) that have a note, by
	// number; an iteration with none shows in full.
	Noted(ctx context.Context, run string, numbers []int) (map[int]Noted, error)
	// InFull counts the iterations of first..last shown in full.
	InFull(ctx context.Context, run string, first, last int) (int, error)
	// WorkingFrom returns the first iteration after the last folded one:
	// from there on, iterations show in full.
	WorkingFrom(ctx context.Context, run string) (int, error)
	// Touch counts an access, at iteration now, to the blocks covering
	// first..last: it raises their access count and sets last-accessed.
	Touch(ctx context.Context, run string, first, last, now int) error
	// Changes looks an entity (a path as written) up in the run's state
	// changes before iteration before: the iteration that changed it last
	// (or removed a directory above it), and the one that made it; 0 for
	// none.
	Changes(ctx context.Context, run, entity string, before int) (last, made int, err error)
}

// Config tunes recall. Zero fields take the defaults.
type Config struct {
	// TTL is how many iterations a recall shows after the one that made or
	// last named it (default 8).
	TTL int
	// ImplicitThreshold gates implicit recall: a match's strength (the
	// entity's specificity weighed with the content's importance, see
	// Strength) must reach it (default 0.6).
	ImplicitThreshold float64
	// MaxImplicit and MaxError bound the recalls one iteration makes
	// (defaults 1 and 2).
	MaxImplicit int
	MaxError    int
	// Limit is the default number of hits of an explicit recall; 0 (the
	// default) leaves it to the caller: the engine takes as many as the
	// window has room for.
	Limit int
	// MaxHits bounds the hits of one explicit recall with a limit
	// (default 100). A fill (Query.Fill) asks for MaxHits first and for
	// more while its room holds them, up to MaxFillHits.
	MaxHits int
	// Focus is how many of an explicit recall's best hits may be whole
	// blocks and come with Context (default 5); the hits past them are
	// single iterations.
	Focus int
	// Context is how many iterations on each side of a focus iteration hit
	// an explicit recall brings back with it (default 1; -1 for none): the
	// step before a match says why, the one after what came of it.
	Context int
	// IndexEvery is how many iterations the index may lack before a step
	// catches it up (default 32; 1 catches up on every step). Until then
	// the newest iterations are found by the triggers (which look in
	// SQLite) and by explicit recalls (which catch the index up first),
	// and a sync leaves the index closed.
	IndexEvery int
	// SecondHop is how many words a recall that fills the window (a
	// question to memory) takes from its best first hits for a second
	// search, whose ranking is fused with the first (default 8; -1 for
	// none): see secondhop.go.
	SecondHop int
	// Nearby is how many iterations on each side of an explicit recall's
	// hit count as around it, for the nearby signal (nearby.go; default
	// 2, the exchange before and after a turn; -1 for none).
	Nearby int
	// Concepts is the weight of the concept signal in a recall that fills
	// the window (concepts.go): the search of the concepts the question's
	// words name, added to the word search at this share of its scale
	// (default 0.25; -1 for none).
	Concepts float64
	// Dates, unless -1, ranks the hits of an explicit recall whose query
	// names a time ("two months ago", "in August 2023") a second time, by
	// the same search kept to the iterations that started then, and fuses
	// both rankings (dates.go); and those of a query that asks when ("When
	// did…", "How long has…"), by the word scores of its hits whose text
	// says a time (askswhen.go). Default 1, on.
	Dates int
}

// maxIndexEvery bounds Config.IndexEvery: an explicit recall catches up
// what the index lacks before it searches, and should not wait long.
const maxIndexEvery = 1024

// fadeTTLs is how many TTLs apart the iterations are at which an expired
// recall that a fold has not cleared fades anyway (Config.FadeFrom).
const fadeTTLs = 4

// FadeFrom is the iteration from which a window that keeps its prefix for
// the prompt cache still shows the recalls that have expired: the last time
// its summaries were laid out again (laidOut: a chapter or cascade), or the
// last multiple of four TTLs, whichever is later. A recall that expires
// stays until the window's summaries change anyway, or at most until the
// next such multiple, so that recalls fade together rather than one at a
// call.
func (c Config) FadeFrom(now, laidOut int) int {
	every := fadeTTLs * c.TTL
	return max(laidOut, now-now%every)
}

// FadeEvery is how many iterations apart FadeFrom lets expired recalls
// fade when no fold has.
func (c Config) FadeEvery() int { return fadeTTLs * c.TTL }

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{TTL: 8, ImplicitThreshold: 0.6, MaxImplicit: 2, MaxError: 2, MaxHits: 100, Focus: 5, Context: 1, IndexEvery: 32, SecondHop: 8, Nearby: 2, Concepts: 0.25, Dates: 1}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.TTL <= 0 {
		c.TTL = d.TTL
	}
	if c.ImplicitThreshold <= 0 {
		c.ImplicitThreshold = d.ImplicitThreshold
	}
	if c.MaxImplicit <= 0 {
		c.MaxImplicit = d.MaxImplicit
	}
	if c.MaxError <= 0 {
		c.MaxError = d.MaxError
	}
	if c.MaxHits <= 0 {
		c.MaxHits = d.MaxHits
	}
	if c.Focus <= 0 {
		c.Focus = d.Focus
	}
	if c.IndexEvery <= 0 {
		c.IndexEvery = d.IndexEvery
	}
	switch {
	case c.Context == 0:
		c.Context = d.Context
	case c.Context < 0:
		c.Context = 0
	}
	switch {
	case c.SecondHop == 0:
		c.SecondHop = d.SecondHop
	case c.SecondHop < 0:
		c.SecondHop = 0
	}
	switch {
	case c.Concepts == 0:
		c.Concepts = d.Concepts
	case c.Concepts < 0:
		c.Concepts = 0
	}
	switch {
	case c.Dates == 0:
		c.Dates = d.Dates
	case c.Dates < 0:
		c.Dates = 0
	}
	switch {
	case c.Nearby == 0:
		c.Nearby = d.Nearby
	case c.Nearby < 0:
		c.Nearby = 0
	}
	return c
}

// Validate reports a setting out of range.
func (c Config) Validate() error {
	if c.TTL < 0 || c.TTL > 10000 {
		return fmt.Errorf("recall ttl %d: want 1 to 10000 iterations", c.TTL)
	}
	if c.ImplicitThreshold < 0 || c.ImplicitThreshold > 1 {
		return fmt.Errorf("recall implicit_threshold %g: want a number in [0, 1]", c.ImplicitThreshold)
	}
	if most := cmp.Or(c.MaxHits, DefaultConfig().MaxHits); c.Limit < 0 || c.MaxHits < 0 || c.Limit > most {
		return fmt.Errorf("recall limit %d, max_hits %d: want limit 0 (as many as fit) or 1 to max_hits (%d), and max_hits > 0", c.Limit, c.MaxHits, most)
	}
	if c.Focus < 0 {
		return fmt.Errorf("recall focus %d: want a positive number of hits", c.Focus)
	}
	if c.IndexEvery < 0 || c.IndexEvery > maxIndexEvery {
		return fmt.Errorf("recall index_every %d: want 1 to %d iterations", c.IndexEvery, maxIndexEvery)
	}
	if c.SecondHop > 64 {
		return fmt.Errorf("recall second_hop %d: want -1 (none) to 64 words", c.SecondHop)
	}
	if c.Nearby > 64 {
		return fmt.Errorf("recall nearby %d: want -1 (none) to 64 iterations", c.Nearby)
	}
	if math.IsNaN(c.Concepts) || c.Concepts > 4 {
		return fmt.Errorf("recall concepts %g: want -1 (none) to 4, the weight of the concept search against the word search", c.Concepts)
	}
	if c.Dates > 1 {
		return fmt.Errorf("recall dates %d: want 1 (on) or -1 (off)", c.Dates)
	}
	if c.Context > 8 {
		return fmt.Errorf("recall context %d: want -1 (none) to 8 iterations", c.Context)
	}
	return nil
}

// Recaller indexes a database's runs and recalls from them. It opens the
// index on first use. It is safe for use by one goroutine at a time.
type Recaller struct {
	journal *journal.Store
	folds   Folds
	cfg     Config
	store   store
	// dir is the index's directory: the database's, or with perRun the
	// directory of the run whose index is open or about to be (useRun),
	// one per run under base.
	dir    string
	perRun bool
	base   string
	ixRun  string
	// Warn receives warnings: an index rebuilt after it was lost. Nil
	// drops them.
	Warn func(string)
	// OnProgress, if set, is called after each batch a catch-up indexes,
	// with the iterations done and the total to do.
	OnProgress func(done, total int)

	mu sync.Mutex
	ix *index
	// preload is closed once a Preload's open is over; preNote holds its
	// warning, for the caller's goroutine to give.
	preload chan struct{}
	preNote string

	wmu     sync.Mutex
	unsaved []unsaved
	// added says that documents were added since the index opened.
	added bool
}

// New returns a Recaller over the database, with its index at dir
// (memory.bleve beside a SQLite file). On PostgreSQL dir holds an index
// per run: the syncs of different runs on one worker, which do not wait
// for each other in the database, do not wait for each other's index
// either, and a run new to the worker costs only its own index.
func New(db *sqldb.DB, j *journal.Store, folds Folds, dir string, cfg Config) *Recaller {
	r := &Recaller{journal: j, folds: folds, cfg: cfg.withDefaults(), store: store{db: db}, dir: dir}
	if db.Dialect == sqldb.Postgres {
		r.perRun, r.base = true, dir
	}
	return r
}

// runIndexDir is where run's index lives under base: its id made safe for
// a file name, and a hash that keeps apart two ids it made alike.
func runIndexDir(base, run string) string {
	safe := strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, run)
	if len(safe) > 40 {
		safe = safe[:40]
	}
	sum := sha256.Sum256([]byte(run))
	return filepath.Join(base, safe+"-"+hex.EncodeToString(sum[:4])+".bleve")
}

// workerOf names the index that holds run, for its stored positions.
func (r *Recaller) workerOf(run string) string {
	if r.perRun {
		return WorkerOf(r.store.db, runIndexDir(r.base, run))
	}
	return WorkerOf(r.store.db, r.dir)
}

// state returns run's positions in the index that holds it.
func (r *Recaller) state(ctx context.Context, run string) (state, error) {
	return r.store.state(ctx, r.store.db.Cached(), r.workerOf(run), run)
}

// useRun points a Recaller with an index per run at run's, closing
// another run's first. Without perRun it does nothing.
func (r *Recaller) useRun(ctx context.Context, run string) error {
	if !r.perRun || r.ixRun == run {
		return nil
	}
	if r.ixRun != "" {
		if err := r.closeIndex(ctx, true); err != nil {
			return err
		}
	}
	r.ixRun, r.dir = run, runIndexDir(r.base, run)
	return nil
}

// Config returns the settings in use.
func (r *Recaller) Config() Config { return r.cfg }

// IndexPath returns where the index lives: with an index per run, the
// directory that holds them.
func (r *Recaller) IndexPath() string {
	if r.perRun {
		return r.base
	}
	return r.dir
}

// Close waits until what was indexed is on disk and saves how far the
// index got, then closes the index, if it was opened. When this Recaller
// added documents, it first runs the merges they call for (see
// closeIndex). It waits lockTimeout at most; positions not saved by then
// are dropped, and the next catch-up indexes their documents again.
func (r *Recaller) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout)
	defer cancel()
	return r.closeIndex(ctx, true)
}

// closeIndex flushes and closes the index. With tidy, and documents added
// since the index opened, it runs the merge policy first: each batch adds
// a segment, and the background merger folds them together only if the
// process lives long enough after the batch, which a sync does not. The
// segments would pile up, and every search and every open visits each.
func (r *Recaller) closeIndex(ctx context.Context, tidy bool) error {
	r.waitPreload()
	err := r.Flush(ctx)
	r.wmu.Lock()
	added := r.added
	r.unsaved, r.added = nil, false
	r.wmu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if tidy && err == nil && added && r.ix != nil {
		_, err = r.ix.merge(ctx)
	}
	if r.preNote != "" && r.Warn != nil {
		r.Warn(r.preNote)
	}
	err = errors.Join(err, r.ix.close())
	r.ix, r.preload, r.preNote = nil, nil, ""
	return err
}

// Preload starts opening the index in the background when the run's next
// Step will write to it (see Config.IndexEvery), so that it is open by
// then: opening reads the index's segment list and maps every segment. A
// failure is left for that caller to meet again.
func (r *Recaller) Preload(ctx context.Context, run journal.Run) {
	st, err := r.state(ctx, run.ID)
	if err != nil || !r.indexDue(st, run, 0) || r.useRun(ctx, run.ID) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ix != nil || r.preload != nil {
		return
	}
	done := make(chan struct{})
	r.preload = done
	go func() {
		defer close(done)
		ix, note, err := r.open(ctx)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.ix, r.preNote = ix, note
		r.mu.Unlock()
	}()
}

// waitPreload waits for a Preload's open to be over.
func (r *Recaller) waitPreload() {
	r.mu.Lock()
	p := r.preload
	r.mu.Unlock()
	if p != nil {
		<-p
	}
}

// index opens the index that holds run if needed (see open).
func (r *Recaller) index(ctx context.Context, run string) (*index, error) {
	if err := r.useRun(ctx, run); err != nil {
		return nil, err
	}
	r.waitPreload()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.preload = nil
	if note := r.preNote; note != "" && r.Warn != nil {
		r.Warn(note)
	}
	r.preNote = ""
	if r.ix != nil {
		return r.ix, nil
	}
	ix, note, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	if note != "" && r.Warn != nil {
		r.Warn(note)
	}
	r.ix = ix
	return ix, nil
}

// open opens the index and makes sure the positions stored in SQLite
// describe it: when the index is new or another one, every run is indexed
// again from the start. note is a warning for the user, if any.
func (r *Recaller) open(ctx context.Context) (*index, string, error) {
	ix, note, err := openIndex(r.dir)
	if err != nil {
		return nil, "", err
	}
	worker := r.workerOf(r.ixRun)
	stored, err := r.store.generation(ctx, worker)
	if err != nil {
		ix.close()
		return nil, "", err
	}
	if stored != ix.generation {
		held, err := ix.bi.DocCount()
		if err != nil {
			ix.close()
			return nil, "", fmt.Errorf("read recall index %s: %w", r.dir, err)
		}
		switch {
		case held > 0:
			// Another database's index, or this one's before the
			// database was replaced: its documents describe iterations
			// and blocks this database may not have, and would come back
			// as hits. Indexing again from the start overwrites only the
			// documents both have, so the index is made anew.
			if ix, err = r.renew(ix); err != nil {
				return nil, "", err
			}
			note = fmt.Sprintf("recall index %s holds %d documents this database did not write (the index of another database, or of this one before it was replaced); rebuilt it from the database", r.dir, held)
		case note == "" && stored != "":
			note = fmt.Sprintf("recall index %s is not the one this database last wrote (lost or replaced); refilling it from the database", r.dir)
		}
		if err := r.store.adopt(ctx, r.ixRun, worker, ix.generation); err != nil {
			ix.close()
			return nil, "", err
		}
	}
	return ix, note, nil
}

// renew closes ix, removes its directory and creates an empty index with
// a new generation in its place.
func (r *Recaller) renew(ix *index) (*index, error) {
	if err := ix.close(); err != nil {
		return nil, fmt.Errorf("close recall index %s to rebuild it: %w (remove it by hand, or run delta memory reindex)", r.dir, err)
	}
	if err := os.RemoveAll(r.dir); err != nil {
		return nil, fmt.Errorf("recall index %s holds another database's documents and could not be removed: %w (remove it by hand, or run delta memory reindex)", r.dir, err)
	}
	return createIndex(r.dir)
}

// Reindex rebuilds the index from scratch and indexes runs. progress, if
// set, is called now and then with iterations done and the total.
func (r *Recaller) Reindex(ctx context.Context, runs []journal.Run, progress func(done, total int)) error {
	if err := r.closeIndex(ctx, false); err != nil {
		return err
	}
	if r.perRun {
		// Every run's index: the catch-ups below make each again.
		for _, run := range runs {
			if err := r.Forget(ctx, run.ID); err != nil {
				return err
			}
		}
		r.ixRun, r.dir = "", r.base
	} else {
		// Removed on purpose: the next open makes a new index without
		// warning that this one was lost.
		if err := r.store.forget(ctx, r.ixRun, r.workerOf(r.ixRun)); err != nil {
			return err
		}
		if err := os.RemoveAll(r.dir); err != nil {
			return fmt.Errorf("remove %s: %w", r.dir, err)
		}
	}
	total, done := 0, 0
	for _, run := range runs {
		total += run.Iterations
	}
	for _, run := range runs {
		base := done
		if _, err := r.CatchUp(ctx, run, func(n int) {
			if progress != nil {
				progress(base+n, total)
			}
		}); err != nil {
			return fmt.Errorf("reindex run %s: %w", run.ID, err)
		}
		done += run.Iterations
	}
	return nil
}
