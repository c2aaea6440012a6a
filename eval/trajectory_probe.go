package eval

import (
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

// maxEvidence is how many terms of an earlier step stand for it in a probe.
const maxEvidence = 8

// Probe is one revisit in a trajectory: step Step calls a tool on a target
// (a path, an id, a date) that the earlier step Source also called a tool
// on, the most recent such step. Steps are journal iterations, from 1.
type Probe struct {
	Step   int `json:"step"`
	Source int `json:"source"`
	// Targets are the targets both steps' calls name, lowercased.
	Targets []string `json:"targets"`
	// Evidence are the terms of Source that Step may need: the rarest
	// words of its tool output that Step's own calls and the run's system
	// prompt and task do not hold. A system holds the probe when at least
	// half of them (rounded up) are in the window it builds for Step.
	Evidence []string `json:"evidence"`
	// FromAction says the evidence comes from Source's tool calls, its
	// output having no such word.
	FromAction bool `json:"from_action,omitempty"`
}

// Distance is how many steps back the probe reaches.
func (p Probe) Distance() int { return p.Step - p.Source }

// needed is how many evidence terms a window must hold: half, rounded up.
func (p Probe) needed() int { return (len(p.Evidence) + 1) / 2 }

// holds reports whether the words of a window hold the probe's evidence.
func (p Probe) holds(window map[string]bool) bool { return len(p.found(window)) >= p.needed() }

// found returns the probe's evidence terms that the words of a window
// hold, in the evidence's order.
func (p Probe) found(window map[string]bool) []string {
	out := []string{}
	for _, w := range p.Evidence {
		if window[w] {
			out = append(out, w)
		}
	}
	return out
}

// trajectory is a transcript prepared for the eval: its steps as the
// engine groups them, and its probes.
type trajectory struct {
	name, format string
	// head are the events before the first step: RUN_START, the system
	// prompt, the task.
	head []journal.Event
	// steps are the journal's iterations, with their events.
	steps []*journal.Iteration
	// static is the run's system prompt and task.
	static string
	// texts[i] is step i+1 in full (its outputs as the engine shows
	// them, asShown), pending[i] as it stands when its
	// calls are issued (pendingStep), both as the journal renders them.
	texts, pending []string
	index          *stepIndex
	probes         []Probe
	// skipped counts the probes left out for want of evidence terms.
	skipped int
	calls   int
}

// newTrajectory prepares a run read back from the journal, and finds its
// probes.
func newTrajectory(name, format string, run journal.Run, head []journal.Event, steps []*journal.Iteration) *trajectory {
	tr := &trajectory{name: name, format: format, head: head, steps: steps,
		static: strings.TrimSpace(run.SystemPrompt + "\n" + run.Task)}
	for _, it := range steps {
		tr.texts = append(tr.texts, asShown(it).Text())
		tr.pending = append(tr.pending, pendingStep(it).Text())
		tr.calls += len(it.Calls)
	}
	tr.index = newStepIndex(tr.texts)
	tr.findProbes()
	return tr
}

// asShown returns it with each tool output as the engine's windows show
// it (fold.CompactOutput: a JSON document without its insignificant
// whitespace), so that a step costs the baselines what it costs the
// engine: the systems differ in what they keep, not in how they spell it.
func asShown(it *journal.Iteration) *journal.Iteration {
	c := *it
	c.Calls = slices.Clone(it.Calls)
	for i := range c.Calls {
		if r := c.Calls[i].Result; r != nil {
			shown := *r
			shown.Output = fold.CompactOutput(r.Output)
			c.Calls[i].Result = &shown
		}
	}
	return &c
}

// findProbes links each step's targets to the most recent earlier step
// that had them, one probe per pair of steps, and gives each its
// evidence; a probe without evidence is counted in skipped.
func (tr *trajectory) findProbes() {
	static := wordSet(tr.static)
	last := map[string]int{}
	for i, it := range tr.steps {
		t := i + 1
		targets := callTargets(it.Calls)
		var found []Probe
		for _, v := range targets {
			s, ok := last[v]
			if !ok {
				continue
			}
			j := 0
			for j < len(found) && found[j].Source != s {
				j++
			}
			if j == len(found) {
				found = append(found, Probe{Step: t, Source: s})
			}
			found[j].Targets = append(found[j].Targets, v)
		}
		for _, v := range targets {
			last[v] = t
		}
		for _, p := range found {
			p.Evidence, p.FromAction = tr.evidence(p.Step, p.Source, static)
			if len(p.Evidence) == 0 {
				tr.skipped++
				continue
			}
			tr.probes = append(tr.probes, p)
		}
	}
}

// evidence picks the terms of step s that step t may need: the rarest
// words of s's tool output, among the steps before t, that are not in
// the static part nor in t's calls; failing any, those of s's calls that
// are not in the static part nor anywhere in t as it stands.
func (tr *trajectory) evidence(t, s int, static map[string]bool) ([]string, bool) {
	src, cur := tr.steps[s-1], tr.steps[t-1]
	skip := union(static, wordSet(callText(cur.Calls)))
	if ev := tr.index.rarest(words(outputText(src.Calls)), skip, t-1, maxEvidence); len(ev) > 0 {
		return ev, false
	}
	skip = union(static, wordSet(tr.pending[t-1]))
	return tr.index.rarest(words(callText(src.Calls)), skip, t-1, maxEvidence), true
}

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// ProbeResult is what each system's window held of one probe at one
// budget (eval trajectories --questions).
type ProbeResult struct {
	Run    string `json:"run"`
	Budget int    `json:"budget"`
	Probe
	// Distance is the probe's bucket of DistanceBuckets; Needed, how many
	// of its evidence terms a window must hold.
	Distance string `json:"distance"`
	Needed   int    `json:"needed"`
	// Found lists, per system, the evidence terms its window held (outside
	// Static for the engine, as judged); Held says whether that held the
	// probe; Tokens is the window's size.
	Found  map[string][]string `json:"found"`
	Held   map[string]bool     `json:"held"`
	Tokens map[string]int      `json:"tokens"`
	// Contexts is, per system, the window text the evidence was looked
	// for in (the engine's without Static); only with Options.Contexts.
	Contexts map[string]string `json:"contexts,omitempty"`
}

// probeResult reads what each system's window (shown, by system) held of
// probe p at budget.
func probeResult(run string, budget int, p Probe, shown map[string]shown) ProbeResult {
	pr := ProbeResult{Run: run, Budget: budget, Probe: p, Distance: DistanceBuckets[distanceBucket(p.Distance())], Needed: p.needed(),
		Found: map[string][]string{}, Held: map[string]bool{}, Tokens: map[string]int{}}
	for sys, sh := range shown {
		found := p.found(wordSet(sh.text))
		pr.Found[sys], pr.Held[sys], pr.Tokens[sys] = found, len(found) >= p.needed(), sh.tokens
	}
	return pr
}
