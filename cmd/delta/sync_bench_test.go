package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// BenchmarkSyncProcess times `delta memory sync` as Delta Engine runs it:
// a new process for each new iteration, start-up included, on a run
// already synced up to 100, 1,000 and 10,000 iterations, and 100,000 with
// DELTA_BENCH_LARGE=1 (testrun.LargeEnv). The binary is built once from
// this package. Goal: ≤ 20 ms at 10,000, and flat: the ratio of 10,000 to
// 100 at most 1.5.
//
// mode=resident is the default: the first sync of the workspace (untimed
// here) starts the resident server, and the timed syncs hand their work to
// it. mode=cold sets DELTA_MEMORY_RESIDENT=off: each process does all the
// work itself. mode=postgres and postgres-cold are the same for a worker
// of a fleet: the workspace's database copied into a PostgreSQL database
// on a local server (internal/pgtest; skipped without one), the worker
// keeping its recall index in a directory of its own (goal: ≤ 50 ms at
// 10,000 iterations).
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
		f    *os.File
		env  []string
		// pgEnv is env for a PostgreSQL copy of the workspace's database,
		// made by the first postgres mode.
		pgEnv []string
	}
	// One workspace per size, shared by the sub-benchmarks' runs (the
	// first has b.N = 1), each going on where the last stopped.
	fixtures := map[int]*fixture{}
	// sync appends the next held-back iteration and runs one sync.
	sync := func(b *testing.B, fx *fixture, env []string) time.Duration {
		if fx.next >= len(fx.ws.Next) {
			b.Fatalf("at most %d new iterations in all: use a smaller -benchtime or -count", len(fx.ws.Next))
		}
		if _, err := fx.f.Write(fx.ws.Next[fx.next]); err != nil {
			b.Fatal(err)
		}
		fx.next++
		cmd := exec.Command(bin, "memory", "sync")
		cmd.Env = env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("sync: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	for _, n := range testrun.Sizes(100, 1000, 10000) {
		for _, mode := range []string{"cold", "resident", "postgres-cold", "postgres"} {
			b.Run(fmt.Sprintf("iterations=%d/mode=%s", n, mode), func(b *testing.B) {
				fx := fixtures[n]
				if fx == nil {
					fx = &fixture{ws: testrun.SyncedWorkspace(parent, n)}
					f, err := os.OpenFile(fx.ws.Journal, os.O_WRONLY|os.O_APPEND, 0o644)
					if err != nil {
						b.Fatal(err)
					}
					parent.Cleanup(func() { f.Close() })
					fx.f = f
					fx.env = append(os.Environ(), "DELTA_CWD="+fx.ws.Dir, "DELTA_RUN_ID="+testrun.RunID,
						fmt.Sprintf("DELTA_MEMORY_BUDGET=%d", testrun.WorkspaceBudget), "DELTA_MEMORY_RESIDENT_IDLE=5m")
					parent.Cleanup(func() {
						cmd := exec.Command(bin, "memory", "resident", "--stop")
						cmd.Env = fx.env
						cmd.Run()
					})
					fixtures[n] = fx
				}
				env := fx.env
				if strings.HasPrefix(mode, "postgres") {
					if fx.pgEnv == nil {
						fx.pgEnv = append(slices.Clip(env), "DELTA_MEMORY_DB="+onPostgres(parent, fx.ws.Dir), "DELTA_MEMORY_INDEX_HOME="+parent.TempDir())
						pgEnv := fx.pgEnv
						parent.Cleanup(func() {
							cmd := exec.Command(bin, "memory", "resident", "--stop")
							cmd.Env = pgEnv
							cmd.Run()
						})
						sync(b, fx, append(slices.Clip(fx.pgEnv), "DELTA_MEMORY_RESIDENT=off")) // builds the worker's index
					}
					env = fx.pgEnv
				}
				switch {
				case strings.HasSuffix(mode, "cold"):
					env = append(slices.Clip(env), "DELTA_MEMORY_RESIDENT=off")
				case !residentRuns(bin, env):
					sync(b, fx, env)
					waitResident(b, bin, env)
				}
				times := make([]time.Duration, 0, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					times = append(times, sync(b, fx, env))
				}
				b.StopTimer()
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(times[(len(times)*99)/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}

// onPostgres copies the workspace's database into a new PostgreSQL
// database and returns its URL.
func onPostgres(b testing.TB, ws string) string {
	ctx := context.Background()
	url := pgtest.URL(b)
	src, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(ws, ".delta", "memory.db"), Budget: testrun.WorkspaceBudget})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := memory.Open(ctx, memory.Config{DBPath: url, Budget: testrun.WorkspaceBudget, IndexDir: filepath.Join(b.TempDir(), "index.bleve")})
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	if _, err := memory.Copy(ctx, src, dst, memory.CopyOptions{}, nil); err != nil {
		b.Fatal(err)
	}
	return url
}

// residentRuns says whether a resident server answers for env's workspace.
func residentRuns(bin string, env []string) bool {
	cmd := exec.Command(bin, "memory", "resident", "--status", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	return err == nil && bytes.Contains(out, []byte(`"running": true`))
}

// waitResident waits for the server a sync started to listen.
func waitResident(tb testing.TB, bin string, env []string) {
	tb.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if residentRuns(bin, env) {
			return
		}
	}
	tb.Fatal("the first sync started no resident server within 5 s")
}
