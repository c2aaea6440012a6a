package scoring

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// BenchmarkCountSynth measures Count throughput on the lines of
// synth-400.jsonl, ours against tiktoken-go's, with each vocabulary loaded.
func BenchmarkCountSynth(b *testing.B) {
	journal := synthJournal(b)
	lines := strings.Split(journal, "\n")
	for _, enc := range acceptedEncodings {
		ours := mustTokenizer(b, enc)
		theirs := mustReference(b, enc).codec
		b.Run(enc+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(journal)))
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					ours.Count(line)
				}
			}
		})
		b.Run(enc+"/tiktoken-go", func(b *testing.B) {
			b.SetBytes(int64(len(journal)))
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					if _, err := theirs.Count(line); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// firstUseEnv selects what TestFirstUseChild measures: "ours" or
// "tiktoken-go".
const firstUseEnv = "SCORING_FIRST_USE"

// TestFirstUseChild is the child process of BenchmarkFirstUse: it times
// getting an o200k_base tokenizer and counting sampleThought in a process
// that has not used one yet, and prints the time. It skips in normal runs.
func TestFirstUseChild(t *testing.T) {
	mode := os.Getenv(firstUseEnv)
	if mode == "" {
		t.Skip("run by BenchmarkFirstUse")
	}
	start := time.Now()
	var n int
	switch mode {
	case "ours":
		tk, err := NewTokenizer("o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		n = tk.Count(sampleThought)
	case "tiktoken-go":
		codec, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		if n, err = codec.Count(sampleThought); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("%s=%q, want ours or tiktoken-go", firstUseEnv, mode)
	}
	fmt.Printf("first-use-ns %d tokens %d\n", time.Since(start).Nanoseconds(), n)
}

// BenchmarkFirstUse measures the first NewTokenizer and Count of a process,
// which per-process caching hides from ordinary benchmarks, by running
// TestFirstUseChild in a fresh process per iteration. It reports the median
// in-process time as first-use-ns; ns/op includes starting the process.
func BenchmarkFirstUse(b *testing.B) {
	for _, mode := range []string{"ours", "tiktoken-go"} {
		b.Run(mode, func(b *testing.B) {
			var times []float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestFirstUseChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), firstUseEnv+"="+mode)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var ns, tokens int
				line := out[:max(0, strings.IndexByte(string(out), '\n'))]
				if _, err := fmt.Sscanf(string(line), "first-use-ns %d tokens %d", &ns, &tokens); err != nil {
					b.Fatalf("child output %q: %v", out, err)
				}
				times = append(times, float64(ns))
			}
			slices.Sort(times)
			b.ReportMetric(times[len(times)/2], "first-use-ns")
		})
	}
}
