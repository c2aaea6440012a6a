package recall_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// benchQueries are what an agent might ask its memory in a generated run.
var benchQueries = [][]string{
	{"config timeout"}, {"pytest failed assertion"}, {"src/cache/ttl.py"}, {"CACHE_MAX_ENTRIES"},
	{"connection refused localhost"}, {"permission denied"}, {"requirements pin version"}, {"rename moved file"},
}

// BenchmarkRetrieve measures an explicit recall (search, expansion, no
// recording) on a folded run of n iterations, and reports the p50 and p99
// latencies besides the mean.
func BenchmarkRetrieve(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng, _ := testrun.Build(b, testrun.Options{Iterations: n, MaxOutputBytes: 2000, Budget: 32000})
			run, err := eng.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := eng.Recall.CatchUp(ctx, run, nil); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := eng.Retrieve(ctx, run, recall.Query{Keywords: benchQueries[i%len(benchQueries)], DryRun: true}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkIndex measures indexing a run of n iterations from scratch
// (iteration documents, in batches, each persisted), and reports
// iterations per second.
func BenchmarkIndex(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng, err := engine.Open(ctx, engine.Config{DBPath: filepath.Join(b.TempDir(), "memory.db")})
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			events, err := synth.Events(synth.Config{Seed: 1, Iterations: n, RunID: testrun.RunID, MaxOutputBytes: 2000})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, events); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := eng.Reindex(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
		})
	}
}
