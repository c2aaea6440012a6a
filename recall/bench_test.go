package recall_test

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// benchQueries are what an agent might ask its memory in a generated run.
var benchQueries = [][]string{
	{"config timeout"}, {"pytest failed assertion"}, {"src/cache/ttl.py"}, {"CACHE_MAX_ENTRIES"},
	{"connection refused localhost"}, {"permission denied"}, {"requirements pin version"}, {"rename moved file"},
}

// benchWhenQueries ask when, so that each also ranks again its hits that
// say a time (askswhen.go).
var benchWhenQueries = [][]string{
	{"When did the config timeout change?"}, {"When did pytest last fail an assertion?"},
	{"How long has src/cache/ttl.py been there?"}, {"When was the file renamed?"},
}

// benchRun returns an engine over the generated run of n iterations the
// benchmarks share (testrun.BenchOptions), folded by the scheduler, and the
// run. It fails unless the run holds blocks.
func benchRun(b *testing.B, n int) (*memory.Engine, journal.Run) {
	b.Helper()
	ctx := context.Background()
	o := testrun.BenchOptions(n)
	eng := testrun.OnBackend(b, testrun.Cached(b, o), o.Budget)
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		b.Fatal(err)
	}
	blocks, err := eng.Fold.AllBlocks(ctx, run.ID)
	if err != nil {
		b.Fatal(err)
	}
	if len(blocks) == 0 {
		b.Fatalf("the run of %d iterations has no blocks", n)
	}
	return eng, run
}

// BenchmarkRetrieve measures an explicit recall (search, expansion, no
// recording) on a folded run of 1,000 and 10,000 iterations, and 100,000
// with DELTA_BENCH_LARGE=1 (testrun.LargeEnv), and reports the p50 and p99
// latencies besides the mean, and the mean CPU time. mode=limit5 asks for
// five hits, as an agent's recall_memory call with a limit; mode=limit20,
// twenty, past the focus, so with the second search; mode=when5 asks
// five hits of questions that ask when; mode=fill gives
// no limit, so the recall takes as many hits as the window has room for
// (the run's budget is 32,000 tokens: some eighty iterations rendered).
// It runs at the delta command's garbage collector target
// (memory.BulkGCPercent), as the processes that recall do (`delta memory
// retrieve`, `mcp`, `resident`): a recall keeps about a megabyte live and
// allocates ten, so at Go's default target the collector ran two or three
// times a fill.
func BenchmarkRetrieve(b *testing.B) {
	for _, n := range testrun.Sizes(1_000, 10_000) {
		for _, mode := range []struct {
			name    string
			limit   int
			queries [][]string
		}{{"limit5", 5, benchQueries}, {"when5", 5, benchWhenQueries}, {"limit20", 20, benchQueries}, {"fill", 0, benchQueries}} {
			b.Run(fmt.Sprintf("iterations=%d/mode=%s", n, mode.name), func(b *testing.B) {
				benchRetrieve(b, n, mode.limit, mode.queries)
			})
		}
	}
}

func benchRetrieve(b *testing.B, n, limit int, queries [][]string) {
	defer debug.SetGCPercent(debug.SetGCPercent(memory.BulkGCPercent))
	ctx := context.Background()
	eng, run := benchRun(b, n)
	// The index must be complete before timing: a catch-up here would be
	// timed in the first recall.
	if w, err := eng.Recall.CatchUp(ctx, run, nil); err != nil || w != 0 {
		b.Fatalf("the built run's index was not complete: %d documents written, %v", w, err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	c0, measured := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := eng.Retrieve(ctx, run, recall.Query{Keywords: queries[i%len(queries)], Limit: limit, DryRun: true}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	if c1, ok := processCPU(); measured && ok {
		b.ReportMetric(float64((c1-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkIndex measures an import's indexing throughput: Recaller.Reindex
// of a folded run, which drops the index and indexes the run's iterations
// and blocks from the database in batches, until the last is on disk. It
// reports iterations indexed per second, and the CPU time of all
// goroutines (bleve analyses in its own), which varies less than wall time
// on a shared machine. The delta command raises the garbage collector's
// target (memory.BulkGCPercent), and so does the benchmark.
func BenchmarkIndex(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(memory.BulkGCPercent))
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng, run := benchRun(b, n)
			b.ReportAllocs()
			var cpu time.Duration
			var measured bool
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c0, _ := processCPU()
				if err := eng.Recall.Reindex(ctx, []journal.Run{run}, nil); err != nil {
					b.Fatal(err)
				}
				// Reindex returns before its last batches are on disk; an
				// import is done once they are.
				if err := eng.Recall.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				c1, ok := processCPU()
				cpu, measured = cpu+c1-c0, ok
			}
			b.StopTimer()
			if measured {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
		})
	}
}
