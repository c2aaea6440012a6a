package journal_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// importJournal returns a generated Delta journal of n iterations, cached
// on disk, and its event count. Outputs are capped at 300 bytes so that
// imports measure the cost per event, not bytes copied.
func importJournal(b *testing.B, n int) (string, int) {
	b.Helper()
	path := testrun.JournalFile(b, synth.Config{Seed: 1, Iterations: n, MaxOutputBytes: 300})
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, bytes.Count(data, []byte("\n"))
}

// BenchmarkImport imports a whole Delta journal of 1,000 and 10,000
// iterations, and 100,000 with DELTA_BENCH_LARGE=1 (testrun.LargeEnv),
// into a fresh database per op, and reports iterations and events per
// second: a first import's cost must grow no faster than the journal, so
// the rates should be flat. (The incremental import of new lines onto a
// long run is what a sync does, timed by BenchmarkSync in
// the root package memory.)
func BenchmarkImport(b *testing.B) {
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			path, events := importJournal(b, n)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := journal.Open(ctx, pgtest.Target(b, b.TempDir()))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := s.ImportFile(ctx, path, journal.ImportOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Added != events || res.Iterations != n {
					b.Fatalf("imported %d of %d events, %d of %d iterations", res.Added, events, res.Iterations, n)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkReimportUnchanged measures the import of a journal of 1,000 and
// 10,000 iterations (100,000 with DELTA_BENCH_LARGE=1) with nothing new,
// the common case for a generator run before every LLM call: the import
// cursor lets it skip the whole file, so the cost must not follow the
// journal's length.
func BenchmarkReimportUnchanged(b *testing.B) {
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			path, _ := importJournal(b, n)
			ctx := context.Background()
			s, err := journal.Open(ctx, filepath.Join(b.TempDir(), "memory.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.ImportFile(ctx, path, journal.ImportOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := s.ImportFile(ctx, path, journal.ImportOptions{})
				if err != nil || res.Added != 0 || !res.Resumed {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}
