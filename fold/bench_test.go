package fold_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// BenchmarkSchedulerStep measures one new iteration noted and folded into a
// run that already has n: the note, the triggers, and any fold they make.
// Appending the iteration is not timed.
func BenchmarkSchedulerStep(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng, gen := testrun.Build(b, testrun.Options{Iterations: n, Extra: b.N, MaxOutputBytes: 2000, Budget: 32000})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ev, _ := gen.Next()
				if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, ev); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := eng.Scheduler.Step(ctx, testrun.RunID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
