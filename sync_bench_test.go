package memory_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// BenchmarkSync times one sync call for one new iteration, in process, on a
// run already synced up to 100, 1,000 and 10,000 iterations, and 100,000
// with DELTA_BENCH_LARGE=1 (testrun.LargeEnv). The process as a whole
// (start-up included) is timed by BenchmarkSyncProcess in cmd/delta.
func BenchmarkSync(b *testing.B) {
	parent := b
	// One workspace per size, shared by the sub-benchmark's runs (the
	// testing package runs each once with b.N = 1 first), each going on
	// from where the previous one stopped. They live in the parent's temp
	// dir, which outlasts the sub-benchmarks.
	fixtures := map[int]*syncFixture{}
	for _, n := range testrun.Sizes(100, 1000, 10000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			fx := fixtures[n]
			if fx == nil {
				fx = benchSyncFixture(parent, n)
				fixtures[n] = fx
			}
			if fx.next+b.N > len(fx.chunks) {
				b.Fatalf("at most %d iterations past the fixture in all: use a smaller -benchtime or -count", len(fx.chunks))
			}
			b.ReportAllocs()
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fx.append(b, fx.next)
				fx.next++
				start := time.Now()
				if _, err := fx.eng.Sync(fx.ctx, fx.opts); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[(len(times)*99)/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// benchSyncFixture opens an engine on a copy of the cached workspace synced
// up to n iterations, its held-back iterations to append.
func benchSyncFixture(tb testing.TB, n int) *syncFixture {
	tb.Helper()
	ctx := context.Background()
	ws := testrun.SyncedWorkspace(tb, n)
	fx := &syncFixture{ctx: ctx, chunks: ws.Next}
	fx.opts = memory.SyncOptions{Journal: ws.Journal, KeepRecent: memory.DefaultKeepRecent}
	fx.openJournal(tb)
	eng, err := memory.Open(ctx, memory.Config{DBPath: ws.DB(), Budget: testrun.WorkspaceBudget})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	fx.eng = testrun.OnBackend(tb, eng, testrun.WorkspaceBudget)
	return fx
}

// syncFixture is a workspace whose journal holds a run up to some
// iteration, with the rest of the run held back in chunks.
type syncFixture struct {
	ctx    context.Context
	eng    *memory.Engine
	opts   memory.SyncOptions
	chunks [][]byte
	f      *os.File
	// next is the index of the next chunk to append.
	next int
}

// generatedChunks generates a run of n iterations with light outputs and
// splits it into iterations.
func generatedChunks(tb testing.TB, n int) [][]byte {
	var buf bytes.Buffer
	if err := synth.WriteJSONL(&buf, synth.Config{Seed: 11, Iterations: n, RunID: "bench", MaxOutputBytes: 4000}); err != nil {
		tb.Fatal(err)
	}
	chunks, err := testrun.SplitIterations(buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return chunks
}

// openJournal creates the workspace journal for appending.
func (fx *syncFixture) openJournal(tb testing.TB) {
	if err := os.MkdirAll(filepath.Dir(fx.opts.Journal), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(fx.opts.Journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	fx.f = f
}

// append writes chunk i, one iteration's lines, to the journal.
func (fx *syncFixture) append(tb testing.TB, i int) {
	if _, err := fx.f.Write(fx.chunks[i]); err != nil {
		tb.Fatal(err)
	}
}
