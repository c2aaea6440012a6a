package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// plainFailureText is FailureText without the marker prefilter: every
// line through the patterns.
func plainFailureText(output string) bool {
	for line := range strings.Lines(output) {
		if failureLine(line) {
			return true
		}
	}
	return false
}

// plainErrorLine is ErrorLine without the marker prefilter.
func plainErrorLine(output string, maxLen int) string {
	var best string
	bestTier := tierNone
	for line := range strings.Lines(output) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(strings.ToLower(t), tracebackHeader) {
			continue
		}
		if tier := errorTier(line, t); tier != tierNone && tier >= bestTier {
			best, bestTier = t, tier
		}
	}
	if isPytestELine(best) {
		best = strings.TrimSpace(best[1:])
	}
	return truncateRunes(best, maxLen)
}

// failureSamples are lines and outputs near the patterns' edges: every
// kind of failure line, prose that is not one, and non-ASCII letters that
// case folding maps onto ASCII (the Kelvin sign, long s, dotted I).
var failureSamples = []string{
	"", "\n", "   \n\t\n", "ok", "PASS", "E", "E ", "E   AssertionError: x", "E\tkey missing", "Eh what",
	"Traceback (most recent call last):", "TRACEBAC\u212a (MOST RECENT CALL LAST)", "traceback (most recent call last)",
	"cat: x: No such file or directory", "bash: foo: command not found", "PERMİSSİON DENİED", "Permission denied",
	"connection refused", "Connection timed out", "operation timed out", "Segmentation fault (core dumped)",
	"Error: Cannot find module 'x'", "cannot find module", "fatal: not a git repository", "xfatal: y", "a fatal error",
	"error: failed", "Error: x", "error[E0308]: mismatched types", "ERROR x", "ERRORS", "FATAL y", "[ERROR] z", "[fatal] w",
	"npm ERR! code", "ERR! x", "panic: boom", "PANIC : x", "ValueError: bad", "pkg.mod.KeyError", "Exception in thread \"main\"",
	"Caused by: java.io.IOException", "caused by: x", "main.go:12:5: undefined: x", "a.c:3:1: error: y", "src/a.ts(3,5): error TS2345",
	"a.py:3: fatal error", "    parse_test.go:12: got 1", "curl: (7) Failed to connect", "curl: (x)", "FAILED tests/a.py::t",
	"FAILED", "failed", "1 failed, 2 passed", "0 failed", "2 failing", "FAILURES=2", "failures=0", "errors=1", "Found 3 errors",
	"found 0 errors", "2 errors in 0.1s", "1 error generated", "exit status 1", "exit status 0", "EXIT CODE: 2", "exited with code 3",
	"exit \u017ftatus 1", "exit_code\": 1", "[exit status 1]", "Exit Code (-1)", "src/a.py not found", "sh: 1: pytest: not found",
	"key not found", "'x.y' was not found", "--- FAIL: TestX (0.00s)", "FAIL", "FAIL\tpkg\t0.1s", "FAIL pkg", "Killed", "killed",
	"make: *** [x] Error 2", "make[1]: *** [y]", "make[2]: Leaving", "warning: unused", "no errors found", "errors: 0",
	"I added error handling", "the attempt failed because", "\u00a0error: nbsp-indented", "\u0085Error: nel", "\xff\xfe error: x",
	"ℯrror: script e", "ＥＲＲＯＲ: fullwidth", "Ｆailed", "e\u0301rror: combining",
}

// synthOutputs returns the tool outputs of a generated run.
func synthOutputs(tb testing.TB, seed uint64, n int) []string {
	tb.Helper()
	events, err := synth.Events(synth.Config{Seed: seed, Iterations: n, MaxOutputBytes: 6000})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range events {
		if e.Type != journal.TypeActionResult {
			continue
		}
		var p journal.ActionResultPayload
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			tb.Fatal(err)
		}
		out = append(out, p.ObservationContent)
	}
	return out
}

// checkPrefilter fails when FailureText or ErrorLine disagrees with the
// plain path on output, or when the prefilter rules out a line the patterns
// accept.
func checkPrefilter(t *testing.T, output string) {
	t.Helper()
	if got, want := FailureText(output), plainFailureText(output); got != want {
		t.Fatalf("FailureText(%q) = %v, the patterns alone say %v", output, got, want)
	}
	if got, want := ErrorLine(output, 0), plainErrorLine(output, 0); got != want {
		t.Fatalf("ErrorLine(%q) = %q, the patterns alone say %q", output, got, want)
	}
	for line := range strings.Lines(output) {
		if failureLine(line) && !mayFail(line, nil) {
			t.Fatalf("mayFail(%q) = false, but the line is a failure line", line)
		}
	}
}

func TestFailureTextPrefilter(t *testing.T) {
	t.Parallel()
	var inputs []string
	for _, s := range failureSamples {
		inputs = append(inputs, s, strings.ToUpper(s), strings.ToLower(s), "  "+s+"  \n", "noise line\n"+s+"\nmore noise")
	}
	inputs = append(inputs, strings.Join(failureSamples, "\n"), sampleOutput, sampleThought)
	inputs = append(inputs, synthOutputs(t, 1, 400)...)
	inputs = append(inputs, synthOutputs(t, 7, 400)...)
	failing := 0
	for _, in := range inputs {
		checkPrefilter(t, in)
		if plainFailureText(in) {
			failing++
		}
	}
	// The inputs must exercise both answers, or the comparison says little.
	if failing == 0 || failing == len(inputs) {
		t.Fatalf("%d of %d inputs read as failures; want some of each", failing, len(inputs))
	}
}

func FuzzFailureTextPrefilter(f *testing.F) {
	for _, s := range failureSamples {
		f.Add(s)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(checkPrefilter)
}

// BenchmarkFailureText compares FailureText with the patterns alone over
// generated tool outputs.
func BenchmarkFailureText(b *testing.B) {
	outputs := synthOutputs(b, 1, 300)
	for _, fn := range []struct {
		name string
		f    func(string) bool
	}{{"prefiltered", FailureText}, {"patterns", plainFailureText}} {
		b.Run(fn.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range outputs {
					fn.f(o)
				}
			}
		})
	}
}
