package recall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/delta-memory/delta-memory/internal/lexicon"
)

// ErrIndexLocked is returned when another process held the index for
// longer than the lock timeout.
var ErrIndexLocked = errors.New("the recall index is locked by another process")

// lockTimeout bounds the wait for another process's hold on the index,
// like SQLite's busy timeout; without it bolt waits forever.
const lockTimeout = 10 * time.Second

// mergePlan is the scorch merge policy, for the background merger and for
// Compact. The index grows by small batches (one per agent step), so the
// floor of the merge tiers is lowered from 2,000 documents: with the
// default, every merge of small segments rewrote one ever-growing segment,
// a cost that rose with the run's length.
func mergePlan() mergeplan.MergePlanOptions {
	o := mergeplan.DefaultMergePlanOptions
	o.FloorSegmentSize, o.TierGrowth, o.MaxSegmentsPerTier, o.SegmentsPerMergeTask = 64, 10, 10, 10
	return o
}

// config is the scorch configuration, on create and on open. bleve keeps
// it in the index's index_meta.json, for whoever opens the index next.
func config() map[string]any {
	p := mergePlan()
	return map[string]any{
		"bolt_timeout": lockTimeout.String(),
		"scorchMergePlanOptions": map[string]any{
			"FloorSegmentSize": p.FloorSegmentSize, "TierGrowth": p.TierGrowth,
			"MaxSegmentsPerTier": p.MaxSegmentsPerTier, "SegmentsPerMergeTask": p.SegmentsPerMergeTask,
		},
	}
}

// openConfig is config with what holds for this process only, added when
// an index is opened, so that index_meta.json does not record it.
//
// Batches are unsafe in scorch's sense: a batch returns once its documents
// are searchable, and scorch's persister writes and fsyncs them in the
// background, then calls the batch's persisted callback. A sync runs its
// triggers and compiles its context while the fsyncs happen, instead of
// waiting for them. Nothing is lost for it: a position is saved in SQLite
// only once its documents are on disk (see unsaved.go), and
// Recaller.Close waits for the persister before closing the index. (An
// index opened without this, as bleve.Open would, has safe batches: each
// returns once on disk.)
func openConfig() map[string]any {
	c := config()
	c["unsafe_batch"] = true
	c["asyncErrorCallbackName"] = asyncErrorsName
	return c
}

// asyncErrorsName names, in scorch's registry, the callback that hears of
// the persister's failures: an unsafe batch returns before they can
// happen. The registry is keyed by name and filled at init, as bleve asks;
// the callback finds the index by its store's path.
const asyncErrorsName = "delta-memory/recall"

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrorsName] = asyncError
}

// openIndexes maps an open index's store path (where scorch lives, inside
// the index directory) to the index, for asyncError.
var openIndexes sync.Map

// asyncError records a failure of the persister (or a panic of any of
// scorch's goroutines) on the index it comes from; merge failures only
// leave segments unmerged, and are not failures of a batch.
func asyncError(err error, storePath string) {
	var se *scorch.ScorchError
	if errors.As(err, &se) && se.Source != "persister" && !errors.Is(err, scorch.ErrAsyncPanic) {
		return
	}
	if v, ok := openIndexes.Load(filepath.Clean(storePath)); ok {
		v.(*index).fail(err)
	}
}

// storePath is where bleve keeps scorch's files inside an index directory.
func storePath(path string) string { return filepath.Clean(filepath.Join(path, "store")) }

// generationKey names the index's generation in bleve's internal store.
// The same value is kept in SQLite: when they differ, the index is not the
// one SQLite's positions describe, and it is refilled.
var generationKey = []byte("delta-memory/generation")

// schemaKey names, in bleve's internal store, the version of the mapping
// and documents the index was built with; an index of another version is
// rebuilt. Bump indexSchema when either changes.
var schemaKey = []byte("delta-memory/schema")

// indexSchema 2: block text in its own field (fieldSummary).
// indexSchema 3: fields indexed or stored only where used; no importance.
// indexSchema 4: iteration ranges as span terms, not numeric fields.
// indexSchema 5: entities and spans a line each in one value, not lists.
// indexSchema 6: no acts or changed fields (the triggers look in SQLite).
// indexSchema 7: iterations' concepts (concepts.go), numbered by the
// lexicon's table, whose version is part of the schema.
// indexSchema 8: a call's arguments nested in arrays and objects are text
// and entities too (scoring.ArgText).
const indexSchema = "8." + lexicon.Version

// index is the bleve index beside the database (memory.bleve/).
type index struct {
	path       string
	bi         bleve.Index
	generation string

	// failed is closed on the persister's first failure, which failure
	// then holds.
	failed   chan struct{}
	failOnce sync.Once
	failure  error

	// maker builds the bleve documents, made on first use.
	maker func() (*docMaker, error)
}

// newIndex wraps an open bleve index and registers it for asyncError.
func newIndex(path string, bi bleve.Index, generation string) *index {
	ix := &index{path: path, bi: bi, generation: generation, failed: make(chan struct{})}
	ix.maker = sync.OnceValues(func() (*docMaker, error) { return newDocMaker(bi.Mapping()) })
	openIndexes.Store(storePath(path), ix)
	return ix
}

// fail records the persister's failure.
func (ix *index) fail(err error) {
	ix.failOnce.Do(func() {
		ix.failure = err
		close(ix.failed)
	})
}

// wait returns once a batch's documents are on disk (persisted receives
// from the batch's persisted callback), or the persister failed.
func (ix *index) wait(ctx context.Context, persisted <-chan error) error {
	select {
	case err := <-persisted:
		if err != nil {
			return fmt.Errorf("write recall index %s: %w", ix.path, err)
		}
		return nil
	case <-ix.failed:
		return fmt.Errorf("write recall index %s: %w", ix.path, ix.failure)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// openIndex opens the index at path, creating it when it is missing. An
// index that cannot be opened (corrupt, half-written, from an incompatible
// version) is moved aside and created anew; note says so, for a warning.
func openIndex(path string) (ix *index, note string, err error) {
	if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
		ix, err = createIndex(path)
		return ix, "", err
	}
	bi, err := bleve.OpenUsing(path, openConfig())
	if err == nil {
		gen, gerr := bi.GetInternal(generationKey)
		schema, serr := bi.GetInternal(schemaKey)
		if gerr == nil && len(gen) > 0 && serr == nil && string(schema) == indexSchema {
			return newIndex(path, bi, string(gen)), "", nil
		}
		bi.Close()
		switch {
		case gerr != nil:
			err = gerr
		case len(gen) == 0:
			err = errors.New("no generation recorded")
		case serr != nil:
			err = serr
		case len(schema) == 0:
			err = errors.New("written by an older delta-memory")
		default:
			err = fmt.Errorf("written for index schema %s, this delta-memory uses %s", schema, indexSchema)
		}
	}
	if isLockTimeout(err) {
		return nil, "", fmt.Errorf("%w (%s): wait for it to finish, or stop the other delta memory process", ErrIndexLocked, path)
	}
	reason := err.Error()
	if rmErr := os.RemoveAll(path); rmErr != nil {
		return nil, "", fmt.Errorf("recall index %s is unreadable (%s) and could not be removed: %w", path, reason, rmErr)
	}
	ix, err = createIndex(path)
	if err != nil {
		return nil, "", err
	}
	return ix, fmt.Sprintf("recall index %s was unreadable (%s); rebuilt it from the database", path, reason), nil
}

func isLockTimeout(err error) bool {
	return err != nil && (errors.Is(err, bolterrors.ErrTimeout) || strings.HasSuffix(err.Error(), ": timeout") || err.Error() == "timeout")
}

// createIndex makes an empty index with a new generation.
func createIndex(path string) (*index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("recall index mapping: %w", err)
	}
	bi, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, config())
	if err != nil {
		return nil, fmt.Errorf("create recall index %s: %w", path, err)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		bi.Close()
		return nil, err
	}
	gen := hex.EncodeToString(b[:])
	ix := newIndex(path, bi, gen)
	batch := bi.NewBatch()
	batch.SetInternal(generationKey, []byte(gen))
	batch.SetInternal(schemaKey, []byte(indexSchema))
	if err := ix.write(context.Background(), batch); err != nil {
		ix.close()
		return nil, fmt.Errorf("create recall index %s: %w", path, err)
	}
	return ix, nil
}

// write applies a batch and waits until it is on disk.
func (ix *index) write(ctx context.Context, b *bleve.Batch) error {
	persisted := persistedChan(b)
	if err := ix.bi.Batch(b); err != nil {
		return err
	}
	return ix.wait(ctx, persisted)
}

// dropRun deletes every document of a run, and the position the index
// recorded for it, in batches, each on disk before the next.
func (ix *index) dropRun(ctx context.Context, run string) error {
	const page = 1000
	for {
		q := bleve.NewTermQuery(run)
		q.SetField(fieldRun)
		res, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, page, 0, false))
		if err != nil {
			return fmt.Errorf("find the documents of run %s: %w", run, err)
		}
		b := ix.bi.NewBatch()
		for _, h := range res.Hits {
			b.Delete(h.ID)
		}
		if len(res.Hits) < page {
			b.DeleteInternal(positionKey(run))
		}
		if err := ix.write(ctx, b); err != nil {
			return fmt.Errorf("delete the documents of run %s: %w", run, err)
		}
		if len(res.Hits) < page {
			return nil
		}
	}
}

// persistedChan sets b's persisted callback to send on the channel it
// returns. scorch calls it once the batch is on disk, from its persister,
// which must not block on it.
func persistedChan(b *bleve.Batch) <-chan error {
	ch := make(chan error, 1)
	b.SetPersistedCallback(func(err error) {
		select {
		case ch <- err:
		default:
		}
	})
	return ch
}

// put indexes documents in one batch and returns once they are on disk.
func (ix *index) put(ctx context.Context, docs []document) error {
	persisted, err := ix.add(ctx, docs, nil)
	if err != nil {
		return err
	}
	return ix.wait(ctx, persisted)
}

// add indexes documents in one batch and returns once they are
// searchable. They reach the disk in the background: the channel it
// returns receives nil once they have (see index.wait), and a position
// that counts them must not be saved before. pos, if set, is the run's
// position once the batch is in: the index records it in the same batch
// (see positionKey).
func (ix *index) add(ctx context.Context, docs []document, pos *position) (<-chan error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	maker, err := ix.maker()
	if err != nil {
		return nil, err
	}
	b := ix.bi.NewBatch()
	for i := range docs {
		doc, err := maker.make(&docs[i])
		if err != nil {
			return nil, err
		}
		if err := b.IndexAdvanced(doc); err != nil {
			return nil, fmt.Errorf("index %s: %w", docs[i].id, err)
		}
	}
	if pos != nil {
		b.SetInternal(positionKey(pos.run), []byte(pos.String()))
	}
	if b.Size() == 0 {
		done := make(chan error, 1)
		done <- nil
		return done, nil
	}
	persisted := persistedChan(b)
	if err := ix.bi.Batch(b); err != nil {
		return nil, fmt.Errorf("write recall index: %w", err)
	}
	return persisted, nil
}

// maxMergeRounds bounds compact's rounds; each merges a tier's worth.
const maxMergeRounds = 16

// compact merges the index's segments as the background merger would, a
// round at a time until a round merges nothing, and returns once the
// result is on disk.
func (ix *index) compact(ctx context.Context) error {
	_, err := ix.merge(ctx)
	return err
}

// merge is compact; it reports whether anything merged, and waits for the
// disk only then.
func (ix *index) merge(ctx context.Context) (bool, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return false, fmt.Errorf("merge recall index: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return false, nil
	}
	tasks := func() uint64 {
		n, _ := sc.StatsMap()["TotFileMergePlanTasks"].(uint64)
		return n
	}
	plan := mergePlan()
	start := tasks()
	for range maxMergeRounds {
		before := tasks()
		if err := sc.ForceMerge(ctx, &plan); err != nil {
			return false, fmt.Errorf("merge recall index: %w", err)
		}
		if tasks() == before {
			break
		}
	}
	if tasks() == start {
		return false, nil
	}
	// Merged segments are recorded by the persister in the background,
	// which writes snapshots in order: once a later batch is on disk, so
	// are they.
	b := ix.bi.NewBatch()
	b.SetInternal(generationKey, []byte(ix.generation))
	if err := ix.write(ctx, b); err != nil {
		return true, fmt.Errorf("merge recall index: %w", err)
	}
	return true, nil
}

func (ix *index) close() error {
	if ix == nil || ix.bi == nil {
		return nil
	}
	openIndexes.CompareAndDelete(storePath(ix.path), ix)
	return ix.bi.Close()
}
