// Package testrun builds engines holding long generated runs, for tests and
// benchmarks that need a run already imported and folded.
package testrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// RunID is the id of the run Build makes.
const RunID = "bench"

// Options describe the run to build.
type Options struct {
	Iterations int
	// Extra iterations the returned generator can still produce.
	Extra          int
	MaxOutputBytes int
	Budget         int
	Seed           uint64
	// Settings, if set, is written as memory.yaml beside the database
	// (fold settings such as "pinned_cap: 1").
	Settings string
}

// synthConfig is the generated run Build feeds iterations of: one longer
// than Iterations and Extra, so that the fed ones never end it.
func (o Options) synthConfig() synth.Config {
	return synth.Config{Seed: o.Seed + 1, Iterations: o.Iterations + o.Extra + 1, RunID: RunID, MaxOutputBytes: o.MaxOutputBytes}
}

// Build opens an engine in tb.TempDir and feeds it a generated run, running
// the scheduler after every batch of about 2,000 iterations (the scheduler
// replays its triggers one iteration at a time, so batching changes nothing
// but speed). It returns the engine and the generator, positioned after the
// last iteration fed, for callers that go on appending.
func Build(tb testing.TB, o Options) (*memory.Engine, *synth.Generator) {
	tb.Helper()
	eng, gen, err := build(context.Background(), tb.TempDir(), o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng, gen
}

// build does Build's work in dir, returning the open engine.
func build(ctx context.Context, dir string, o Options) (*memory.Engine, *synth.Generator, error) {
	if o.Settings != "" {
		if err := os.WriteFile(filepath.Join(dir, "memory.yaml"), []byte(o.Settings), 0o644); err != nil {
			return nil, nil, err
		}
	}
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: o.Budget})
	if err != nil {
		return nil, nil, err
	}
	gen, err := synth.New(o.synthConfig())
	if err != nil {
		eng.Close()
		return nil, nil, err
	}
	var batch []journal.Event
	for i := 1; i <= o.Iterations; i++ {
		ev, _ := gen.Next()
		batch = append(batch, ev...)
		if i%2000 == 0 || i == o.Iterations {
			if _, err := eng.Journal.Append(ctx, RunID, journal.FormatDelta, batch); err != nil {
				eng.Close()
				return nil, nil, err
			}
			batch = batch[:0]
			if _, err := eng.Scheduler.Step(ctx, RunID); err != nil {
				eng.Close()
				return nil, nil, err
			}
		}
	}
	return eng, gen, nil
}

// Miscovered checks that every iteration of run is shown by exactly one
// visible thing: a visible block's range, or itself in full, both read in
// one snapshot (fold.Store.Window), as the window reads them. It returns the
// first iteration that is not and how many times it is covered, or 0, 0.
func Miscovered(ctx context.Context, eng *memory.Engine, run journal.Run) (iteration, times int, err error) {
	covered := make([]int, run.Iterations+1)
	blocks, notes, err := eng.Fold.Window(ctx, run.ID)
	if err != nil {
		return 0, 0, err
	}
	for _, b := range blocks {
		for n := max(b.First, 1); n <= min(b.Last, run.Iterations); n++ {
			covered[n]++
		}
	}
	for _, n := range notes {
		if n.Number <= run.Iterations {
			covered[n.Number]++
		}
	}
	for n := 1; n <= run.Iterations; n++ {
		if covered[n] != 1 {
			return n, covered[n], nil
		}
	}
	return 0, 0, nil
}
