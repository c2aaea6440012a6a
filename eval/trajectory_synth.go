package eval

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/delta-memory/delta-memory/internal/synth"
)

// SynthPrefix names generated transcripts in place of a path:
// "synth:8" is eight generated runs of SynthIterations iterations,
// "synth:8x500" eight of 500.
const SynthPrefix = "synth:"

// SynthIterations is how long a generated run is by default.
const SynthIterations = 300

// IsSynth reports whether a transcripts argument names generated runs.
func IsSynth(arg string) bool { return strings.HasPrefix(arg, SynthPrefix) }

// SynthTranscripts generates the runs arg names ("synth:N" or
// "synth:NxITERATIONS"): a coding agent's Delta journals (internal/synth),
// seeds 1 to N, each starting with a realistic system prompt of about
// 1,700 tokens (synth.AgentManual), as real agents do.
func SynthTranscripts(arg string) ([]Transcript, error) {
	spec := strings.TrimPrefix(arg, SynthPrefix)
	runs, iters, found := strings.Cut(spec, "x")
	n, err := strconv.Atoi(runs)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("%s: want %sN or %sNxITERATIONS with N >= 1, e.g. %s8", arg, SynthPrefix, SynthPrefix, SynthPrefix)
	}
	it := SynthIterations
	if found {
		if it, err = strconv.Atoi(iters); err != nil || it < 2 {
			return nil, fmt.Errorf("%s: want at least 2 iterations per run, e.g. %s8x300", arg, SynthPrefix)
		}
	}
	out := make([]Transcript, 0, n)
	for seed := 1; seed <= n; seed++ {
		var b bytes.Buffer
		name := fmt.Sprintf("synth-%d", seed)
		if err := synth.WriteJSONL(&b, synth.Config{Seed: uint64(seed), Iterations: it, RunID: name, SystemPrompt: synth.AgentManual()}); err != nil {
			return nil, err
		}
		ts, err := deltaTranscript(name, b.Bytes())
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}
