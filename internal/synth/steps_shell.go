package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// bugFailure is the failure of the bug's test; it looks the same every run.
func bugFailure(b *bug) testFailure {
	c := &componentBank[b.comp]
	return testFailure{file: c.test, test: b.test, line: 40 + 17*b.comp, assert: b.assert, err: b.err, src: c.files[0], fn: b.fn}
}

// regression is a random unrelated test failure in the phase's component.
func (g *Generator) regression(ph *phase) testFailure {
	r := g.rng
	c := ph.comp
	fn := pick(r, c.funcs)
	a := between(r, 0, 64)
	err := pick(r, []string{
		fmt.Sprintf("AssertionError: assert %d == %d", a, a+between(r, 1, 3)),
		fmt.Sprintf("AssertionError: assert '%s' in {}", pick(r, pyWords)),
		fmt.Sprintf("TypeError: %s() got an unexpected keyword argument 'timeout'", fn),
		fmt.Sprintf("KeyError: '%s'", pick(r, pyWords)),
		"AttributeError: 'NoneType' object has no attribute 'get'",
	})
	return testFailure{file: c.test, test: fmt.Sprintf("test_%s_%s", fn, pick(r, pyWords)), line: between(r, 20, 300),
		assert: fmt.Sprintf("assert %s(%s) == expected", fn, pick(r, pyVars)), err: err, src: pick(r, c.files), fn: fn}
}

// runTests returns a pytest call over scope; fl, if non-nil, fails.
func (g *Generator) runTests(ph *phase, scope string, fl *testFailure, verbose bool) *call {
	r := g.rng
	run := testRun{files: []string{scope}, verbose: verbose, native: fl != nil && chance(r, 4, 5)}
	if i := strings.Index(scope, "::"); i >= 0 {
		run.files, run.single, run.test = []string{scope[:i]}, true, scope[i+2:]
	}
	if scope == "tests/" {
		run.files = g.reg.under("tests/test_")
	}
	cmd := pick(r, []string{"pytest -q", "python -m pytest -q"})
	if verbose {
		cmd = "pytest -v"
	}
	if run.native {
		cmd += " --tb=native"
	}
	cmd += " " + scope
	size := sizeSmall(r)
	if verbose && !run.single {
		size = sizeLarge(r)
		if chance(r, 1, 4) {
			size = sizeHuge(r)
		}
	}
	c := shellCall(cmd, between(r, 900, 40000))
	v := g.voc(ph)
	if fl == nil {
		return g.ok(c, size, func(o *out, r *rand.Rand) { writePytest(o, r, v, run) })
	}
	run.failures = []testFailure{*fl}
	return g.fail(c, journal.StatusFailed, 1, size, func(o *out, r *rand.Rand) { writePytest(o, r, v, run) })
}

func (g *Generator) stepTests(ph *phase) step {
	r := g.rng
	var fl *testFailure
	switch {
	case ph.kind == kindReproduce && chance(r, 3, 4), ph.kind == kindFix && g.bugStillFails(ph):
		f := bugFailure(ph.bug)
		fl = &f
	case ph.kind != kindReproduce && ph.kind != kindFix && chance(r, 1, 8):
		f := g.regression(ph)
		fl = &f
	}
	scope := pick(r, []string{ph.comp.test, ph.comp.test, "tests/"})
	if fl != nil && ph.bug != nil && chance(r, 1, 2) {
		scope = ph.comp.test + "::" + ph.bug.test
	}
	verbose := chance(r, 1, 4)
	c := g.runTests(ph, scope, fl, verbose)
	if fl != nil {
		g.queueTestRepair(ph, *fl, scope)
	}
	thought := pick(r, []string{
		fmt.Sprintf("Running `%s` to see where things stand.", scope),
		fmt.Sprintf("Let me run the tests for the %s (`%s`) before changing anything else.", ph.comp.noun, scope),
		fmt.Sprintf("Time to run `%s`; if `%s` misbehaves it should show up there.", scope, pick(r, ph.comp.funcs)),
	})
	if verbose {
		thought = fmt.Sprintf("Running `%s` verbosely so I can see every test name, not just the dots.", scope)
	}
	return step{thought: thought, calls: []*call{c}}
}

// bugStillFails reports whether the bug test fails at this point of a fix
// phase: almost surely at the start, never after 70% of the phase.
func (g *Generator) bugStillFails(ph *phase) bool {
	p := 85 - ph.done*100*85/(70*ph.length)
	return g.rng.IntN(100) < p
}

// queueTestRepair queues what the agent does after a failing test run.
func (g *Generator) queueTestRepair(ph *phase, fl testFailure, scope string) {
	g.pending = append(g.pending, followUp{kind: fuInspect, path: fl.src, fn: fl.fn, err: fl.err, test: fl.file + "::" + fl.test})
	if ph.kind == kindReproduce {
		return
	}
	g.pending = append(g.pending,
		followUp{kind: fuPatch, path: fl.src, fn: fl.fn, err: fl.err},
		followUp{kind: fuRerunTests, cmd: scope, test: fl.file + "::" + fl.test})
}

func (g *Generator) stepLint(ph *phase) step {
	r := g.rng
	mypy := chance(r, 1, 3)
	cmd := "ruff check src tests"
	if mypy {
		cmd = "mypy src"
	}
	errs := 0
	if chance(r, 1, 3) {
		errs = between(r, 1, 7)
	}
	v := g.voc(ph)
	c := shellCall(cmd, between(r, 400, 9000))
	fill := func(n int) fillFunc { return func(o *out, r *rand.Rand) { writeLint(o, r, v, mypy, n) } }
	if errs == 0 {
		g.ok(c, sizeTiny(r), fill(0))
	} else {
		g.fail(c, journal.StatusFailed, 1, sizeSmall(r), fill(errs))
		g.pending = append(g.pending,
			followUp{kind: fuPatch, path: g.compFile(ph), err: fmt.Sprintf("%d %s errors", errs, strings.Fields(cmd)[0])},
			followUp{kind: fuRerunCmd, cmd: cmd, size: sizeTiny(r), fill: fill(0)})
	}
	return step{thought: pick(r, []string{
		fmt.Sprintf("Running `%s` before going further; CI runs it too.", cmd),
		fmt.Sprintf("Quick `%s` pass to catch anything the tests don't.", cmd),
	}), calls: []*call{c}}
}

func (g *Generator) stepPip(ph *phase) step {
	r := g.rng
	cmd := pick(r, []string{"pip install -e '.[dev]'", "pip install -r requirements.txt -r requirements-dev.txt"})
	v := g.voc(ph)
	c := shellCall(cmd, between(r, 3000, 45000))
	if chance(r, 1, 5) {
		pin := fmt.Sprintf("%s>=%d.%d", pick(r, dependencies[:6]), between(r, 7, 12), r.IntN(9))
		g.fail(c, journal.StatusFailed, 1, sizeSmall(r), func(o *out, r *rand.Rand) { writePip(o, r, v, pin) })
		g.pending = append(g.pending,
			followUp{kind: fuFixRequirements, path: "requirements.txt", err: pin},
			followUp{kind: fuRerunCmd, cmd: cmd, size: sizeMedium(r), fill: func(o *out, r *rand.Rand) { writePip(o, r, v, "") }})
	} else {
		g.ok(c, sizeMedium(r), func(o *out, r *rand.Rand) { writePip(o, r, v, "") })
	}
	return step{thought: pick(r, []string{
		"Installing the package in editable mode with the dev extras so the tests import the working tree.",
		fmt.Sprintf("The %s change needs the dependencies from requirements.txt; installing them.", ph.comp.noun),
	}), calls: []*call{c}}
}

func (g *Generator) stepScript(ph *phase) step {
	r := g.rng
	script, args := "scripts/dev_server.sh", "--check"
	if ph.kind == kindRelease || chance(r, 1, 2) {
		script, args = "scripts/release.sh", "--dry-run"
	}
	cmd := "./" + script + " " + args
	v := g.voc(ph)
	okFill := func(o *out, r *rand.Rand) { writeScriptRun(o, r, v, script) }
	c := shellCall(cmd, between(r, 50, 8000))
	if !g.scriptsExec {
		g.fail(c, journal.StatusFailed, 126, 0, lit("bash: ./"+script+": Permission denied"))
		g.pending = append(g.pending, followUp{kind: fuChmod, path: script},
			followUp{kind: fuRerunCmd, cmd: cmd, size: sizeSmall(r), fill: okFill})
	} else {
		g.ok(c, sizeSmall(r), okFill)
	}
	return step{thought: fmt.Sprintf(pick(r, []string{
		"Let me run `%s` to check the packaging steps without publishing anything.",
		"Running `%s`; it is what CI calls, so it should work locally too.",
	}), cmd), calls: []*call{c}}
}

func (g *Generator) stepGit(ph *phase) step {
	r := g.rng
	i := r.IntN(3)
	sub := [...]string{"status", "diff", "log"}[i]
	cmd := [...]string{"git status", "git diff --stat", "git log --oneline -n 40"}[i]
	files := g.reg.under("src/" + ph.comp.name + "/")
	if len(files) > 4 {
		files = files[:between(r, 1, 4)]
	}
	v := g.voc(ph)
	c := g.ok(shellCall(cmd, between(r, 10, 300)), sizeSmall(r), func(o *out, r *rand.Rand) { writeGit(o, r, v, sub, files, "") })
	return step{thought: pick(r, []string{
		fmt.Sprintf("Checking `%s` to make sure I only touched what I meant to.", cmd),
		fmt.Sprintf("`%s` first, to see what changed recently around the %s.", cmd, ph.comp.noun),
	}), calls: []*call{c}}
}

func (g *Generator) stepReplay(ph *phase) step {
	r := g.rng
	cmd := fmt.Sprintf("python scripts/replay_batch.py tests/fixtures/sample.csv --batch %d", pick(r, []int{100, 500, 1000}))
	rows := between(r, 200, 5000)
	okFill := lit(fmt.Sprintf("replayed %d rows in %d batches (0 errors)", rows, rows/100+1))
	c := shellCall(cmd, between(r, 500, 12000))
	if !chance(r, 1, 2) {
		g.ok(c, 0, okFill)
		return step{thought: "Replaying the sample fixture through the whole pipeline as an end-to-end check.", calls: []*call{c}}
	}
	src, fn := pick(r, ph.comp.files), pick(r, ph.comp.funcs)
	errLine := pick(r, []string{fmt.Sprintf("KeyError: '%s'", pick(r, pyWords)), "ValueError: not enough values to unpack (expected 5, got 4)",
		"UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"})
	v := g.voc(ph)
	g.fail(c, journal.StatusFailed, 1, 0, func(o *out, r *rand.Rand) {
		o.line("Traceback (most recent call last):")
		o.linef("  File \"/workspace/%s/scripts/replay_batch.py\", line %d, in <module>\n    main(sys.argv[1:])", v.proj.name, between(r, 30, 60))
		o.linef("  File \"/workspace/%s/scripts/replay_batch.py\", line %d, in main\n    rows = list(read_batches(path, size=args.batch))", v.proj.name, between(r, 10, 29))
		o.linef("  File \"/workspace/%s/%s\", line %d, in %s", v.proj.name, src, between(r, 20, 300), fn)
		o.b = append(o.b, "    "...)
		o.expand("{v} = {f}({w})", r, v)
		o.line(errLine)
	})
	g.pending = append(g.pending, followUp{kind: fuInspect, path: src, fn: fn, err: errLine},
		followUp{kind: fuPatch, path: src, fn: fn, err: errLine},
		followUp{kind: fuRerunCmd, cmd: cmd, fill: okFill})
	return step{thought: fmt.Sprintf("Replaying the sample fixture through `%s` outside pytest, to see whether the problem shows up end to end.", fn),
		calls: []*call{c}}
}

func (g *Generator) stepTimeout(ph *phase) step {
	r := g.rng
	cmd := "pytest -q tests/"
	c := g.fail(shellCall(cmd, 300_000+between(r, 0, 900)), journal.StatusError, 0, 0,
		lit("Command timed out after 300 seconds; the process group was killed.\n"+strings.Repeat(".", between(r, 40, 400))))
	g.pending = append(g.pending, followUp{kind: fuNarrow, cmd: ph.comp.test})
	return step{thought: "Running the whole suite once to make sure nothing else regressed.", calls: []*call{c}, solo: true}
}

func (g *Generator) stepCopyConfig(ph *phase) step {
	r := g.rng
	dst := "/etc/" + g.proj.name + "/settings.yaml"
	c := g.fail(shellCall("cp config/settings.yaml "+dst, between(r, 5, 40)), journal.StatusFailed, 1, 0,
		lit("cp: cannot create regular file '"+dst+"': Permission denied"))
	g.pending = append(g.pending, followUp{kind: fuAltPath, path: dst})
	return step{thought: fmt.Sprintf("The server reads its settings from `%s` by default; copying our config there so the dev server picks up `%s`.", dst, g.constOf(ph)),
		calls: []*call{c}}
}

// localURL returns a URL on the dev server.
func (g *Generator) localURL() string {
	return "http://" + g.proj.host() + pick(g.rng, []string{"/healthz", "/api/v1/records?limit=200", "/api/v1/records?limit=50&offset=50", "/metrics"})
}

// httpOK completes an http_get of url that succeeds.
func (g *Generator) httpOK(ph *phase, c *call, url string) *call {
	r := g.rng
	v := g.voc(ph)
	switch {
	case strings.HasSuffix(url, "/healthz"):
		return g.ok(c, 0, func(o *out, r *rand.Rand) { writeHealthJSON(o, r, v) })
	case strings.HasSuffix(url, "/metrics"):
		return g.ok(c, sizeMedium(r), func(o *out, r *rand.Rand) { writeMetricsText(o, r, v) })
	case strings.Contains(url, "pypi.org"):
		dep := strings.Split(url, "/")[4]
		return g.ok(c, sizeMedium(r), func(o *out, r *rand.Rand) { writePyPIJSON(o, r, dep) })
	case strings.Contains(url, "api.github.com"):
		return g.ok(c, sizeMedium(r), func(o *out, r *rand.Rand) { writeIssuesJSON(o, r, v) })
	case strings.Contains(url, "docs.python.org"):
		return g.ok(c, sizeMedium(r), func(o *out, r *rand.Rand) { writeHTMLDoc(o, r, v, url) })
	default:
		size := sizeMedium(r)
		if chance(r, 1, 3) {
			size = sizeLarge(r)
		}
		return g.ok(c, size, func(o *out, r *rand.Rand) { writeRecordsJSON(o, r, v) })
	}
}

func (g *Generator) stepHTTPLocal(ph *phase) step {
	r := g.rng
	url := g.localURL()
	c := httpCall(r, url)
	if !g.serverUp {
		g.fail(c, journal.StatusError, 0, 0, lit(fmt.Sprintf("curl: (7) Failed to connect to localhost port %d: Connection refused", g.proj.port)))
		g.pending = append(g.pending, followUp{kind: fuStartServer}, followUp{kind: fuRetryHTTP, cmd: url})
	} else {
		g.httpOK(ph, c, url)
	}
	return step{thought: pick(r, []string{
		fmt.Sprintf("Hitting `%s` on the dev server to check the behaviour end to end.", url),
		fmt.Sprintf("Let me query %s directly; the response shape tells me whether the %s change is live.", url, ph.comp.noun),
	}), calls: []*call{c}, solo: !g.serverUp}
}

func (g *Generator) stepHTTPExternal(ph *phase) step {
	r := g.rng
	dep := pick(r, []string{"requests", "pydantic", "PyYAML", "uvicorn", "boto3", "httpx"})
	url := pick(r, []string{
		"https://pypi.org/pypi/" + dep + "/json",
		fmt.Sprintf("https://api.github.com/repos/%s/%s/issues?state=open&per_page=50", g.proj.owner, g.proj.name),
		"https://docs.python.org/3/library/" + pick(r, []string{"csv", "functools", "datetime", "logging"}) + ".html",
		g.proj.upstream + "/records?since=2025-09-30T00:00:00Z",
	})
	c := httpCall(r, url)
	if strings.HasPrefix(url, g.proj.upstream) && chance(r, 1, 4) {
		g.fail(c, journal.StatusError, 0, 0, lit("curl: (28) Operation timed out after 10001 milliseconds with 0 bytes received"))
	} else {
		g.httpOK(ph, c, url)
	}
	return step{thought: pick(r, []string{
		fmt.Sprintf("Checking %s — I want to be sure the behaviour I'm relying on is documented, not an accident.", url),
		fmt.Sprintf("Fetching %s for reference before I pin anything.", url),
	}), calls: []*call{c}}
}

func (g *Generator) stepThink(ph *phase) step {
	r := g.rng
	fn, k := pick(r, ph.comp.funcs), g.constOf(ph)
	return step{thought: pick(r, []string{
		fmt.Sprintf("Before editing anything, let me think through the order: `%s` is called from the request path and from the batch job, so changing its default for `%s` affects both. I'll keep the default and add an explicit argument instead.", fn, k),
		fmt.Sprintf("Thinking about scope: the %s only needs `%s` to be configurable; rewriting `%s` would be out of scope and risky. The smaller change is enough.", ph.comp.noun, k, fn),
		fmt.Sprintf("Two options: patch `%s` in place, or wrap it. Wrapping keeps the public signature stable, which matters because other services import it. Going with the wrapper.", fn),
	}), solo: true}
}
