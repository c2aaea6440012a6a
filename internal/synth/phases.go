package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// phaseKind is the sort of work the agent does in a phase.
type phaseKind int

const (
	kindExplore phaseKind = iota
	kindReproduce
	kindFix
	kindFeature
	kindTests
	kindRefactor
	kindDocs
	kindRelease
)

// phase is one stretch of work that ends with a milestone.
type phase struct {
	kind    phaseKind
	num     int    // 1-based phase number across the run
	cycle   int    // 0 for the initial task, then one per follow-up request
	title   string // imperative: "fix the parser"
	summary string // result: "parser fixed"
	noun    string // the step: "parser fix"
	gerund  string // for "Moving on to ...": "fixing the parser"
	comp    *component
	bug     *bug
	feat    *feature
	version string // release phases only: "1.4.0"
	ver     [3]int // release phases only: the version as numbers
	length  int    // iterations in the phase
	done    int    // iterations finished so far
}

// planCycle returns the phases of request number cycle. The first request
// starts with exploring the repository; later ones skip it.
// Its release bumps the minor version of base.
func planCycle(r *rand.Rand, p *project, cycle, firstNum int, base [3]int) []*phase {
	b := &bugBank[p.bugs[cycle%len(p.bugs)]]
	f := &featureBank[p.features[cycle%len(p.features)]]
	bc, fc := &componentBank[b.comp], &componentBank[f.comp]
	next := base
	next[1]++
	next[2] = 0
	version := fmt.Sprintf("%d.%d.%d", next[0], next[1], next[2])

	var ps []*phase
	add := func(ph *phase) {
		ph.num = firstNum + len(ps)
		ph.cycle = cycle
		ph.length = between(r, 20, 60)
		ps = append(ps, ph)
	}
	if cycle == 0 {
		add(&phase{kind: kindExplore, title: "explore the repository", summary: "repository explored",
			noun: "exploration", gerund: "exploring the repository", comp: bc})
	}
	add(&phase{kind: kindReproduce, title: "reproduce the failing " + b.title,
		summary: "failing " + b.title + " reproduced", noun: "reproduction",
		gerund: "reproducing the failing " + b.title, comp: bc, bug: b})
	add(&phase{kind: kindFix, title: "fix the " + bc.noun, summary: bc.noun + " fixed",
		noun: bc.noun + " fix", gerund: "fixing the " + bc.noun, comp: bc, bug: b})
	add(&phase{kind: kindFeature, title: "add the " + f.name, summary: f.name + " added",
		noun: f.name, gerund: "the " + f.name, comp: fc, feat: f})
	if cycle%2 == 0 {
		add(&phase{kind: kindTests, title: "extend test coverage for the " + fc.noun,
			summary: "coverage for the " + fc.noun + " extended", noun: "test coverage",
			gerund: "test coverage for the " + fc.noun, comp: fc, feat: f})
	} else {
		add(&phase{kind: kindRefactor, title: "refactor the " + bc.noun,
			summary: bc.noun + " refactored", noun: "refactoring",
			gerund: "refactoring the " + bc.noun, comp: bc})
	}
	add(&phase{kind: kindDocs, title: "write the docs", summary: "docs updated",
		noun: "documentation", gerund: "documentation", comp: fc, feat: f})
	add(&phase{kind: kindRelease, title: "release v" + version, summary: "v" + version + " released",
		noun: "release", gerund: "the v" + version + " release", comp: fc, version: version, ver: next})
	return ps
}

// taskText is the initial request, stated in RUN_START and the first
// USER_MESSAGE.
func taskText(p *project, ps []*phase) string {
	b, f := ps[1].bug, ps[3].feat
	c := &componentBank[b.comp]
	return fmt.Sprintf("You are working in the %s repository (Python 3.11, src/ layout, tests under tests/). "+
		"CI has been red since the last dependency bump: `%s::%s` fails. Please reproduce the failure, fix the %s, "+
		"then add the %s (configurable via `%s` in config/settings.yaml), extend the tests, update the docs, "+
		"and cut release v%s. The dev server runs on %s.",
		p.name, c.test, b.test, c.noun, f.name, f.setting, ps[len(ps)-1].version, p.host())
}

// followUpText is the user's next request when a new cycle starts.
func followUpText(r *rand.Rand, p *project, ps []*phase) string {
	b, f := ps[0].bug, ps[2].feat
	c := &componentBank[b.comp]
	opener := pick(r, []string{"Thanks, the release looks good.", "Nice work on the last release.",
		"Great, that release is deployed.", "Thanks! Ops confirmed the rollout."})
	return fmt.Sprintf("%s Next request: on-call reports that `%s::%s` started failing on main "+
		"(%s). Please reproduce and fix it, then add the %s, keep the docs in sync and ship v%s.",
		opener, c.test, b.test, b.err, f.name, ps[len(ps)-1].version)
}

// milestone is the sentence that declares the end of phase p; next is the
// phase that follows.
func milestone(r *rand.Rand, p, next *phase) string {
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("Phase %d completed: %s.", p.num, p.summary)
	case 1:
		return fmt.Sprintf("Milestone: %s done.", p.noun)
	case 2:
		return fmt.Sprintf("Moving on to %s.", next.gerund)
	case 3:
		return fmt.Sprintf("Finished the %s step.", p.noun)
	case 4:
		return fmt.Sprintf("Phase %d (%s) is complete.", p.num, p.title)
	default:
		return fmt.Sprintf("That's the %s wrapped up.", p.noun)
	}
}

// phaseOpening is an optional sentence for the first thought of a phase.
func phaseOpening(r *rand.Rand, p *phase) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("Starting phase %d: %s.", p.num, p.title)
	case 1:
		return fmt.Sprintf("Next up: %s.", p.title)
	case 2:
		return fmt.Sprintf("Now to %s.", p.title)
	default:
		return ""
	}
}

// userNote is an unprompted user message and how the agent acknowledges it.
type userNote struct{ text, ack string }

// userNoteFor returns a clarification the user may send during phase ph.
func userNoteFor(r *rand.Rand, p *project, ph *phase) userNote {
	c := ph.comp
	k := pick(r, c.consts)
	fn := pick(r, c.funcs)
	notes := []userNote{
		{fmt.Sprintf("Quick note: please keep `%s` configurable from config/settings.yaml, ops wants to tune it without a deploy.", k),
			fmt.Sprintf("The user wants `%s` to stay configurable; I'll read it from config/settings.yaml instead of hard-coding it.", k)},
		{fmt.Sprintf("Please don't change the signature of `%s`, the billing service imports it directly.", fn),
			fmt.Sprintf("Noted: the signature of `%s` must not change, so any fix goes behind it.", fn)},
		{fmt.Sprintf("FYI the dev server now listens on %s, and the upstream sandbox is %s.", p.host(), p.upstream),
			fmt.Sprintf("Noted the dev server address (%s) from the user.", p.host())},
		{"Can you also add a CHANGELOG.md entry for every user-visible change?",
			"The user asked for CHANGELOG.md entries; I'll add one when this change lands."},
		{"Reminder: we still support Python 3.9 in production, so avoid match statements and `X | Y` unions at runtime.",
			"Python 3.9 compatibility is required, so no match statements or runtime `X | Y` unions."},
		{fmt.Sprintf("Is the fix for %s going to need a migration? If so, please flag it in the docs.", c.noun),
			fmt.Sprintf("The user asked whether the %s change needs a migration; I'll note it in the docs if it does.", c.noun)},
		{"Please run the full test suite before any release, not just the module you touched.",
			"Understood, I'll run the whole suite before releasing, not just one module."},
	}
	return pick(r, notes)
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
