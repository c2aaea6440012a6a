package synth

import (
	"fmt"
	"math/rand/v2"
)

// verifyStep is the second-to-last iteration of a phase: the check that
// shows the phase's goal is met.
func (g *Generator) verifyStep(ph *phase) step {
	r := g.rng
	v := g.voc(ph)
	switch ph.kind {
	case kindExplore:
		if chance(r, 1, 2) {
			return g.stepGit(ph)
		}
		return step{thought: "One last look at the README to check how the project expects tests and the dev server to be run.",
			calls: []*call{g.readFile(ph, "README.md")}, solo: true}
	case kindReproduce:
		fl := bugFailure(ph.bug)
		scope := ph.comp.test + "::" + ph.bug.test
		c := g.runTests(ph, scope, &fl, false)
		c.command = "pytest -q -p no:randomly --tb=native " + scope
		c.args = shellArgs{c.command}
		return step{thought: fmt.Sprintf("Running `%s` in isolation with random ordering off, to be sure the failure is deterministic and not order-dependent.", ph.bug.test),
			calls: []*call{c}, solo: true}
	case kindDocs:
		c := g.ok(shellCall("mkdocs build --strict", between(r, 800, 6000)), 0, func(o *out, r *rand.Rand) {
			o.line("INFO    -  Cleaning site directory")
			o.linef("INFO    -  Building documentation to directory: /workspace/%s/site", v.proj.name)
			o.linef("INFO    -  Documentation built in %.2f seconds", float64(between(r, 40, 400))/100)
		})
		return step{thought: "Building the docs with `--strict` so broken links or missing pages fail loudly.", calls: []*call{c}, solo: true}
	case kindRelease:
		version := ph.version
		c := g.ok(shellCall("python -m build && twine check dist/*", between(r, 8000, 40000)), sizeMedium(r),
			func(o *out, r *rand.Rand) {
				writeBuild(o, r, v, version)
				o.linef("Checking dist/%s-%s-py3-none-any.whl: PASSED\nChecking dist/%s-%s.tar.gz: PASSED", v.proj.name, version, v.proj.name, version)
			})
		return step{thought: fmt.Sprintf("Building the sdist and wheel for v%s and running `twine check` on them.", version), calls: []*call{c}, solo: true}
	}
	verbose := chance(r, 1, 3)
	c := g.runTests(ph, "tests/", nil, verbose)
	return step{thought: pick(r, []string{
		"Running the whole suite before I call this done.",
		"Full test run to make sure nothing else regressed.",
		fmt.Sprintf("Everything for the %s is in place; running all tests as the final check.", ph.comp.noun),
	}), calls: []*call{c}, solo: true}
}

// closingStep is the last iteration of a phase: the agent sums up, declares
// the milestone and wraps up (usually with a commit).
func (g *Generator) closingStep(ph *phase) step {
	r := g.rng
	next := g.phases[1]
	ms := milestone(r, ph, next)
	v := g.voc(ph)
	commit := func(msg string) *call {
		cmd := fmt.Sprintf("git add -A && git commit -m %q", msg)
		files := g.reg.under("src/" + ph.comp.name + "/")
		return g.ok(shellCall(cmd, between(r, 100, 900)), 0, func(o *out, r *rand.Rand) { writeGit(o, r, v, "commit", files, msg) })
	}
	switch ph.kind {
	case kindExplore:
		return step{thought: fmt.Sprintf("I have the map now: the %s code lives in `src/%s/`, settings come from config/settings.yaml via `load_settings`, "+
			"and the tests run with pytest from the repository root. %s Next I'll %s.", ph.comp.noun, ph.comp.name, ms, next.title), solo: true}
	case kindReproduce:
		notes := "notes/" + ph.bug.test + ".md"
		content := g.renderContent(between(r, 300, 900), func(o *out, r *rand.Rand) {
			o.linef("# %s\n\nFails deterministically with:\n\n    %s\n\nSuspected cause: %s.", ph.bug.test, ph.bug.err, ph.bug.cause)
		})
		c := g.okText(writeCall(r, notes, content), fmt.Sprintf("Created %s (%d bytes)", notes, len(content)))
		g.reg.add(notes)
		return step{thought: fmt.Sprintf("The failure reproduces every time: `%s`. My suspicion is that %s. %s Writing the findings to `%s` before I start the fix.",
			ph.bug.err, ph.bug.cause, ms, notes), calls: []*call{c}, solo: true}
	case kindRelease:
		g.proj.version = ph.ver
		tag := "v" + ph.version
		c := g.okText(shellCall(fmt.Sprintf("git tag -a %s -m 'Release %s' && git push origin %s", tag, tag, tag), between(r, 800, 4000)),
			fmt.Sprintf("To github.com:%s/%s.git\n * [new tag]         %s -> %s", g.proj.owner, g.proj.name, tag, tag))
		return step{thought: fmt.Sprintf("Build and checks are clean, so I'm tagging %s and pushing the tag; CI publishes from tags. %s", tag, ms),
			calls: []*call{c}, solo: true}
	case kindFix:
		return step{thought: fmt.Sprintf("All tests pass, including `%s`. %s Committing the change.", ph.bug.test, ms),
			calls: []*call{commit(fmt.Sprintf("Fix %s: %s", ph.bug.fn, ph.bug.title))}, solo: true}
	case kindDocs:
		return step{thought: fmt.Sprintf("The docs build cleanly and describe `%s`. %s", pick(r, ph.comp.consts), ms),
			calls: []*call{commit("Docs: " + ph.comp.noun)}, solo: true}
	}
	summary := fmt.Sprintf("The suite is green and the %s behaves as intended.", ph.comp.noun)
	switch ph.kind {
	case kindFeature:
		summary = fmt.Sprintf("The %s works end to end and the suite is green.", ph.feat.name)
	case kindTests:
		summary = fmt.Sprintf("The new tests cover the %s edge cases and the whole suite passes.", ph.feat.name)
	case kindRefactor:
		summary = fmt.Sprintf("The %s is split into smaller modules and the suite is still green.", ph.comp.noun)
	}
	return step{thought: fmt.Sprintf("%s %s Committing before the next step.", summary, ms),
		calls: []*call{commit(capitalize(ph.title))}, solo: true}
}
