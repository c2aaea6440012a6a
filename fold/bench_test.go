package fold_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// BenchmarkSchedulerStep measures one new iteration noted and folded into a
// run that already has 1,000 and 10,000 iterations, and 100,000 with
// DELTA_BENCH_LARGE=1 (testrun.LargeEnv): the note, the triggers, and any
// fold they make, with the median and 99th percentile besides the mean
// (a step that folds costs more). Appending the iteration is not timed. The run is a fresh
// copy of the cached one the other benchmarks share, so every run of the
// benchmark starts at the same length; -benchtime can be at most
// testrun.BenchExtra.
func BenchmarkSchedulerStep(b *testing.B) {
	// The iterations that follow each run, generated once per size.
	next := map[int][][]journal.Event{}
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			o := testrun.BenchOptions(n)
			if b.N > o.Extra {
				b.Fatalf("at most %d steps: use -benchtime %dx", o.Extra, o.Extra)
			}
			eng := testrun.Cached(b, o)
			if next[n] == nil {
				next[n] = testrun.Continuation(b, o)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, next[n][i]); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				if _, err := eng.Scheduler.Step(ctx, testrun.RunID); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
