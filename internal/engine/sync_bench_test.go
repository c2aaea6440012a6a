package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// syncHeadroom is how many iterations past the fixture a benchmark can
// append, one per sync.
const syncHeadroom = 400

// BenchmarkSync times one sync call for one new iteration, in process, on a
// run already synced up to 100, 1,000 and 10,000 iterations. The process
// as a whole (start-up included) is timed by BenchmarkSyncProcess in
// cmd/delta.
func BenchmarkSync(b *testing.B) {
	parent := b
	syncFixtures = map[int]*syncFixture{} // the last run's are gone with its temp dir
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			fx := sharedSyncFixture(parent, n)
			if fx.next+b.N > len(fx.chunks) {
				b.Fatalf("at most %d iterations past the fixture: use -benchtime %dx", syncHeadroom-1, syncHeadroom-1)
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

// syncFixtures are built once per size and shared by a sub-benchmark's
// runs (the testing package runs each once with b.N = 1 first), each run
// going on from where the previous one stopped. They live in the parent
// benchmark's temp dir, which outlasts the sub-benchmarks.
var syncFixtures = map[int]*syncFixture{}

func sharedSyncFixture(b *testing.B, n int) *syncFixture {
	if fx, ok := syncFixtures[n]; ok {
		return fx
	}
	fx := newSyncFixture(b, n)
	syncFixtures[n] = fx
	return fx
}

// syncFixture is a workspace whose journal holds a generated run up to
// some iteration, synced once, with the rest of the run held back.
type syncFixture struct {
	ctx    context.Context
	eng    *engine.Engine
	opts   engine.SyncOptions
	chunks [][]byte
	f      *os.File
	// next is the index of the next chunk to append.
	next int
}

func newSyncFixture(tb testing.TB, n int) *syncFixture {
	tb.Helper()
	ctx := context.Background()
	fx := &syncFixture{ctx: ctx, chunks: generatedChunks(tb, n+syncHeadroom)}
	dir := tb.TempDir()
	fx.opts = engine.SyncOptions{Journal: engine.JournalPath(dir, "bench"), KeepRecent: engine.DefaultKeepRecent}
	fx.openJournal(tb)
	for i := 0; i < n; i++ {
		fx.append(tb, i)
	}
	eng, err := engine.Open(ctx, engine.Config{DBPath: filepath.Join(dir, ".delta", "memory.db"), Budget: 8000})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	fx.eng, fx.next = eng, n
	start := time.Now()
	if _, err := eng.Sync(ctx, fx.opts); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("fixture: %d iterations synced in %s", n, time.Since(start).Round(time.Millisecond))
	return fx
}

// generatedChunks generates a run of n iterations with light outputs and
// splits it into iterations.
func generatedChunks(tb testing.TB, n int) [][]byte {
	var buf bytes.Buffer
	if err := synth.WriteJSONL(&buf, synth.Config{Seed: 11, Iterations: n, RunID: "bench", MaxOutputBytes: 4000}); err != nil {
		tb.Fatal(err)
	}
	return chunkIterations(tb, buf.Bytes())
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

// append writes iteration i+1's lines to the journal.
func (fx *syncFixture) append(tb testing.TB, i int) {
	if _, err := fx.f.Write(fx.chunks[i]); err != nil {
		tb.Fatal(err)
	}
}

// chunkIterations splits Delta lines into iterations, each starting at a
// THOUGHT; what precedes the first THOUGHT joins it.
func chunkIterations(tb testing.TB, data []byte) [][]byte {
	var chunks [][]byte
	var cur []byte
	thought := false
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		e, err := journal.ParseDeltaLine(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			tb.Fatal(err)
		}
		if e.Type == journal.TypeThought && thought {
			chunks = append(chunks, cur)
			cur = nil
		}
		thought = thought || e.Type == journal.TypeThought
		cur = append(cur, line...)
	}
	return append(chunks, cur)
}
