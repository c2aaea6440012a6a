package synth

import (
	"io"
	"testing"
)

// BenchmarkWriteJSONL measures generating and encoding a 1000-iteration run
// with the default output cap.
func BenchmarkWriteJSONL(b *testing.B) {
	b.ReportAllocs()
	cfg := Config{Seed: 1, Iterations: 1000}
	for b.Loop() {
		if err := WriteJSONL(io.Discard, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextLight measures streaming a light 1000-iteration run
// (MaxOutputBytes 200), as benchmarks of the folding engine use.
func BenchmarkNextLight(b *testing.B) {
	b.ReportAllocs()
	cfg := Config{Seed: 1, Iterations: 1000, MaxOutputBytes: 200}
	for b.Loop() {
		g, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, ok := g.Next(); !ok {
				break
			}
		}
	}
}
