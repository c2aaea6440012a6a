package window_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// BenchmarkContext compiles and renders the window of a folded run of
// 1,000 and 10,000 iterations, and 100,000 with DELTA_BENCH_LARGE=1
// (testrun.LargeEnv): the cached run the other benchmarks share. Its cost
// must follow the window, not the run: the figures should be flat. It
// reports the median and 99th percentile besides the mean.
func BenchmarkContext(b *testing.B) {
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng := testrun.Cached(b, testrun.BenchOptions(n))
			run, err := eng.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				cx, err := eng.Context(ctx, run, memory.ContextOptions{})
				if err != nil {
					b.Fatal(err)
				}
				_ = cx.Markdown()
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
