package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// writeSynthJournal writes a generated Delta journal and returns its path and
// event count.
func writeSynthJournal(b *testing.B, iterations, maxOutput int) (string, int) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "synth", "journal.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg := synth.Config{Seed: 1, Iterations: iterations, MaxOutputBytes: maxOutput}
	if err := synth.WriteJSONL(f, cfg); err != nil {
		b.Fatal(err)
	}
	f.Close()
	events, err := synth.Events(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return path, len(events)
}

// BenchmarkImport imports a ~100k-event Delta journal into a fresh database
// per op, and reports events per second. Outputs are capped at 300 bytes so
// the figure measures per-event cost, not bytes copied.
func BenchmarkImport(b *testing.B) {
	path, n := writeSynthJournal(b, 30_800, 300)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := journal.Open(ctx, filepath.Join(b.TempDir(), "memory.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := s.ImportFile(ctx, path, journal.ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Added != n {
			b.Fatalf("imported %d of %d events", res.Added, n)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(n), "events/op")
}

// BenchmarkReimportUnchanged measures the import of a journal with nothing
// new, the common case for a generator run before every LLM call: the import
// cursor lets it skip the whole file.
func BenchmarkReimportUnchanged(b *testing.B) {
	path, _ := writeSynthJournal(b, 30_800, 300)
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
}
