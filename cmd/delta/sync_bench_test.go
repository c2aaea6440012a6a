package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/testrun"
)

// BenchmarkSyncProcess times `delta memory sync` as Delta Engine runs it:
// a new process for each new iteration, start-up included, on a run
// already synced up to 100, 1,000 and 10,000 iterations, and 100,000 with
// DELTA_BENCH_LARGE=1 (testrun.LargeEnv). The binary is built once from
// this package. Goal: ≤ 20 ms at 10,000, and flat: the ratio of 10,000 to
// 100 at most 1.5.
//
//	go test ./cmd/delta -run '^$' -bench SyncProcess -benchtime 100x
func BenchmarkSyncProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "delta")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build delta: %v\n%s", err, out)
	}
	parent := b
	type fixture struct {
		ws   testrun.Workspace
		next int
	}
	// One workspace per size, shared by the sub-benchmark's runs (the
	// first has b.N = 1), each going on where the last stopped.
	fixtures := map[int]*fixture{}
	for _, n := range testrun.Sizes(100, 1000, 10000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			fx := fixtures[n]
			if fx == nil {
				fx = &fixture{ws: testrun.SyncedWorkspace(parent, n)}
				fixtures[n] = fx
			}
			if fx.next+b.N > len(fx.ws.Next) {
				b.Fatalf("at most %d new iterations in all: use a smaller -benchtime or -count", len(fx.ws.Next))
			}
			f, err := os.OpenFile(fx.ws.Journal, os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			env := append(os.Environ(), "DELTA_CWD="+fx.ws.Dir, "DELTA_RUN_ID="+testrun.RunID,
				fmt.Sprintf("DELTA_MEMORY_BUDGET=%d", testrun.WorkspaceBudget))
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f.Write(fx.ws.Next[fx.next]); err != nil {
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
