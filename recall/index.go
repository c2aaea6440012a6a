package recall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	bolterrors "go.etcd.io/bbolt/errors"
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

// config is the scorch configuration, on create and on open.
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
const indexSchema = "3"

// index is the bleve index beside the database (memory.bleve/).
type index struct {
	path       string
	bi         bleve.Index
	generation string
}

// openIndex opens the index at path, creating it when it is missing. An
// index that cannot be opened (corrupt, half-written, from an incompatible
// version) is moved aside and created anew; note says so, for a warning.
func openIndex(path string) (ix *index, note string, err error) {
	if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
		ix, err = createIndex(path)
		return ix, "", err
	}
	bi, err := bleve.OpenUsing(path, config())
	if err == nil {
		gen, gerr := bi.GetInternal(generationKey)
		schema, serr := bi.GetInternal(schemaKey)
		if gerr == nil && len(gen) > 0 && serr == nil && string(schema) == indexSchema {
			return &index{path: path, bi: bi, generation: string(gen)}, "", nil
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
	for _, kv := range [][2][]byte{{generationKey, []byte(gen)}, {schemaKey, []byte(indexSchema)}} {
		if err := bi.SetInternal(kv[0], kv[1]); err != nil {
			bi.Close()
			return nil, fmt.Errorf("create recall index %s: %w", path, err)
		}
	}
	return &index{path: path, bi: bi, generation: gen}, nil
}

// put indexes documents in one batch. bleve persists the batch before it
// returns (scorch's safe batches), so a position saved after put is never
// ahead of what the index holds.
func (ix *index) put(ctx context.Context, docs []document) error {
	if len(docs) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b := ix.bi.NewBatch()
	for i := range docs {
		if err := b.Index(docs[i].id, docs[i].fields()); err != nil {
			return fmt.Errorf("index %s: %w", docs[i].id, err)
		}
	}
	if err := ix.bi.Batch(b); err != nil {
		return fmt.Errorf("write recall index: %w", err)
	}
	return nil
}

// maxMergeRounds bounds compact's rounds; each merges a tier's worth.
const maxMergeRounds = 16

// compact merges the index's segments as the background merger would, a
// round at a time until a round merges nothing, and returns once the
// result is persisted.
func (ix *index) compact(ctx context.Context) error {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return fmt.Errorf("merge recall index: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	tasks := func() uint64 {
		n, _ := sc.StatsMap()["TotFileMergePlanTasks"].(uint64)
		return n
	}
	plan := mergePlan()
	for range maxMergeRounds {
		before := tasks()
		if err := sc.ForceMerge(ctx, &plan); err != nil {
			return fmt.Errorf("merge recall index: %w", err)
		}
		if tasks() == before {
			break
		}
	}
	// Merged segments are recorded by the persister in the background; a
	// batch returns once the persister has caught up with it.
	if err := ix.bi.SetInternal(generationKey, []byte(ix.generation)); err != nil {
		return fmt.Errorf("merge recall index: %w", err)
	}
	return nil
}

func (ix *index) close() error {
	if ix == nil || ix.bi == nil {
		return nil
	}
	return ix.bi.Close()
}
