package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/simulate"
	"github.com/delta-memory/delta-memory/internal/synth"
)

// BenchmarkSyncProcess times `delta memory sync` as Delta Engine runs it:
// a new process for each new iteration, start-up included, on a run
// already synced up to 100 and to 10,000 iterations. The binary is built
// once from this package. Goal: ≤ 20 ms at 10,000, and flat: the ratio of
// the two at most 1.5.
//
//	go test ./cmd/delta -run '^$' -bench SyncProcess -benchtime 100x
func BenchmarkSyncProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "delta")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build delta: %v\n%s", err, out)
	}
	parent := b
	type fixture struct {
		ws     string
		chunks []simulate.Chunk
		next   int
	}
	// One workspace per size, shared by the sub-benchmark's runs (the
	// first has b.N = 1), each going on where the last stopped.
	fixtures := map[int]*fixture{}
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			const headroom = 1200
			fx := fixtures[n]
			if fx == nil {
				ws, chunks := syncWorkspace(parent, n, headroom)
				fx = &fixture{ws: ws, chunks: chunks, next: n}
				fixtures[n] = fx
			}
			if fx.next+b.N > len(fx.chunks) {
				b.Fatalf("at most %d new iterations: use -benchtime %dx", headroom-1, headroom-1)
			}
			ws := fx.ws
			f, err := os.OpenFile(engine.JournalPath(ws, "bench"), os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			env := append(os.Environ(), "DELTA_CWD="+ws, "DELTA_RUN_ID=bench", "DELTA_MEMORY_BUDGET=8000")
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f.Write(fx.chunks[fx.next]); err != nil {
					b.Fatal(err)
				}
				fx.next++
				cmd := exec.Command(bin, "memory", "sync")
				cmd.Env = env
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("sync: %v\n%s", err, out)
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

// syncWorkspace writes a generated run's first n iterations to a Delta
// workspace and syncs them in process; it returns the workspace and every
// iteration's lines, headroom more than n.
func syncWorkspace(b *testing.B, n, headroom int) (string, []simulate.Chunk) {
	b.Helper()
	ws := b.TempDir()
	path := engine.JournalPath(ws, "bench")
	os.MkdirAll(filepath.Dir(path), 0o755)
	full := filepath.Join(b.TempDir(), "journal.jsonl")
	f, err := os.Create(full)
	if err != nil {
		b.Fatal(err)
	}
	if err := synth.WriteJSONL(f, synth.Config{Seed: 11, Iterations: n + headroom, RunID: "bench", MaxOutputBytes: 4000}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	src, err := simulate.Load(full, "delta")
	if err != nil {
		b.Fatal(err)
	}
	var head []byte
	for _, c := range src.Chunks[:n] {
		head = append(head, c...)
	}
	if err := os.WriteFile(path, head, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{DBPath: filepath.Join(ws, ".delta", "memory.db"), Budget: 8000})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	start := time.Now()
	if _, err := eng.Sync(ctx, engine.SyncOptions{Journal: path, KeepRecent: engine.DefaultKeepRecent}); err != nil {
		b.Fatal(err)
	}
	b.Logf("fixture: %d iterations synced in %s", n, time.Since(start).Round(time.Millisecond))
	return ws, src.Chunks
}
