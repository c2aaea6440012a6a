package testrun

import (
	"os"
	"testing"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// LargeEnv names the environment variable that, set to 1, adds runs of
// 100,000 iterations to the benchmarks. The first build of each such
// fixture takes minutes; it is cached afterwards (see Cached).
const LargeEnv = "DELTA_BENCH_LARGE"

// Sizes returns the run lengths a benchmark covers: sizes, and 100,000
// when LargeEnv is 1.
func Sizes(sizes ...int) []int {
	if os.Getenv(LargeEnv) == "1" {
		sizes = append(sizes, 100_000)
	}
	return sizes
}

// BenchExtra is how many iterations past a BenchOptions run Continuation
// returns: the most one benchmark invocation may append.
const BenchExtra = 1000

// BenchOptions are the options of the folded run of n iterations that the
// append, scheduler step, context and retrieve benchmarks share, so that
// one cached build of each length serves them all.
func BenchOptions(n int) Options {
	return Options{Iterations: n, Extra: BenchExtra, MaxOutputBytes: 2000, Budget: 32000}
}

// Continuation returns the o.Extra iterations that follow the run Build
// makes with o, one slice of events per iteration, for benchmarks that go
// on appending to a copy from Cached. It generates the run from the start,
// which takes seconds for 100,000 iterations: callers keep the result.
func Continuation(tb testing.TB, o Options) [][]journal.Event {
	tb.Helper()
	gen, err := synth.New(o.synthConfig())
	if err != nil {
		tb.Fatal(err)
	}
	for range o.Iterations {
		gen.Next()
	}
	out := make([][]journal.Event, 0, o.Extra)
	for range o.Extra {
		ev, _ := gen.Next()
		out = append(out, ev)
	}
	return out
}
