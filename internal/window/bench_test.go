package window_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// BenchmarkContext compiles the window of runs of growing length. Its cost
// must follow the window, not the run: the figures should be flat.
func BenchmarkContext(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng, _ := testrun.Build(b, testrun.Options{Iterations: n, MaxOutputBytes: 600, Budget: 32000})
			run, err := eng.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				cx, err := eng.Context(ctx, run, engine.ContextOptions{})
				if err != nil {
					b.Fatal(err)
				}
				_ = cx.Markdown()
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
