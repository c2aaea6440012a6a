package synth

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

// testFailure is one failing test in a pytest run.
type testFailure struct {
	file   string // tests/test_ingest.py
	test   string // test_parse_header_multiline
	line   int    // line of the assert
	assert string // the assert statement
	err    string // "AssertionError: ..." or another exception line
	src    string // source file of the innermost frame, if any
	fn     string // function of the innermost frame
}

// testRun describes one pytest invocation.
type testRun struct {
	files    []string // test modules collected
	failures []testFailure
	verbose  bool   // -v: one line per test
	native   bool   // --tb=native: Python tracebacks
	single   bool   // one test id (file::test) was selected
	test     string // the selected test when single
}

// banner centres text in a line of '=' like pytest does.
func banner(fill byte, text string) string {
	const width = 80
	if text != "" {
		text = " " + text + " "
	}
	left := (width - len(text)) / 2
	if left < 3 {
		left = 3
	}
	right := width - len(text) - left
	if right < 3 {
		right = 3
	}
	return strings.Repeat(string(fill), left) + text + strings.Repeat(string(fill), right)
}

// writePytest writes pytest output for run. Verbose runs list tests until
// the output reaches o.target.
func writePytest(o *out, r *rand.Rand, v vocab, run testRun) {
	passed := 0
	o.line(banner('=', "test session starts"))
	o.line("platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0")
	if run.verbose {
		o.line("cachedir: .pytest_cache")
	}
	o.linef("rootdir: /workspace/%s\nconfigfile: pyproject.toml\nplugins: cov-5.0.0, timeout-2.3.1", v.proj.name)
	collected := len(run.files)*between(r, 6, 24) + len(run.failures)
	if run.single {
		collected = 1
	} else if run.verbose {
		collected = max(collected, o.target/90)
	}
	o.linef("collected %d items\n", collected)
	failIdx := 0
	if run.verbose {
		for i := 0; i < collected && o.more(); i++ {
			f := run.files[i%len(run.files)]
			c := compForTest(f)
			name := fmt.Sprintf("test_%s_%s", pick(r, c.funcs), pick(r, pyWords))
			if r.IntN(5) == 0 {
				name += fmt.Sprintf("[case-%d]", r.IntN(12))
			}
			status := "PASSED"
			if run.single && len(run.failures) == 0 {
				name = run.test
			}
			if failIdx < len(run.failures) && (run.single || r.IntN(8) == 0) {
				f, name, status = run.failures[failIdx].file, run.failures[failIdx].test, "FAILED"
				failIdx++
			} else if r.IntN(40) == 0 {
				status = "SKIPPED (requires network)"
			} else {
				passed++
			}
			o.linef("%-68s %s [%3d%%]", f+"::"+name, status, (i+1)*100/collected)
		}
	} else {
		done := 0
		for i, f := range run.files {
			n := max(1, collected/len(run.files))
			dots := []byte(strings.Repeat(".", n))
			for _, fl := range run.failures {
				if fl.file == f {
					dots[r.IntN(len(dots))] = 'F'
				}
			}
			passed += n - strings.Count(string(dots), "F")
			done += n
			if i == len(run.files)-1 {
				done = collected
			}
			o.linef("%-72s [%3d%%]", f+" "+string(dots), done*100/collected)
		}
	}
	if run.verbose { // failures the listing did not reach yet
		for ; failIdx < len(run.failures); failIdx++ {
			o.linef("%-68s FAILED [100%%]", run.failures[failIdx].file+"::"+run.failures[failIdx].test)
		}
	}
	if len(run.failures) > 0 {
		o.line("")
		o.line(banner('=', "FAILURES"))
		for _, fl := range run.failures {
			writeFailure(o, r, v, run, fl)
		}
		o.line(banner('=', "short test summary info"))
		for _, fl := range run.failures {
			o.linef("FAILED %s::%s - %s", fl.file, fl.test, fl.err)
		}
	}
	secs := float64(between(r, 80, 4200)) / 100
	switch {
	case len(run.failures) > 0:
		o.line(banner('=', fmt.Sprintf("%d failed, %d passed in %.2fs", len(run.failures), passed, secs)))
	case run.verbose:
		o.line(banner('=', fmt.Sprintf("%d passed, %d skipped in %.2fs", passed, collected-passed, secs)))
	default:
		o.line(banner('=', fmt.Sprintf("%d passed in %.2fs", passed, secs)))
	}
}

// writeFailure writes the traceback section of one failing test.
func writeFailure(o *out, r *rand.Rand, v vocab, run testRun, fl testFailure) {
	o.line(banner('_', fl.test))
	srcLine := between(r, 40, 380)
	if run.native {
		o.line("Traceback (most recent call last):")
		o.linef("  File \"/workspace/%s/%s\", line %d, in %s\n    %s", v.proj.name, fl.file, fl.line, fl.test, fl.assert)
		if fl.src != "" && !strings.HasPrefix(fl.err, "AssertionError") {
			o.linef("  File \"/workspace/%s/%s\", line %d, in %s", v.proj.name, fl.src, srcLine, fl.fn)
			o.b = append(o.b, "    "...)
			o.expand(pick(r, pyStmts[:8]), r, v)
		}
		o.line(fl.err)
	} else {
		o.line("")
		o.linef("    def %s(%s):", fl.test, pick(r, []string{"tmp_path", "sample_rows", "monkeypatch"}))
		o.b = append(o.b, "        "...)
		o.expand("{v} = {f}({w})", r, v)
		o.linef(">       %s", fl.assert)
		o.linef("E       %s", fl.err)
		o.line("")
		o.linef("%s:%d: %s", fl.file, fl.line, strings.SplitN(fl.err, ":", 2)[0])
	}
	if r.IntN(3) == 0 {
		o.line(banner('-', "Captured log call")[:80])
		o.b = append(o.b, "WARNING  "...)
		o.expand(v.comp.name+":"+path.Base(v.comp.files[0])+":{n} {s} spans two lines; using the first {s} only", r, v)
	}
}

// compForTest returns the component a test module belongs to.
func compForTest(file string) *component {
	for i := range componentBank {
		if strings.Contains(file, componentBank[i].name) {
			return &componentBank[i]
		}
	}
	return &componentBank[0]
}

// writeLint writes ruff or mypy output; failing runs list errors.
func writeLint(o *out, r *rand.Rand, v vocab, mypy bool, errs int) {
	files := v.comp.files
	if mypy {
		for i := 0; i < errs; i++ {
			o.linef("%s:%d: error: %s", pick(r, files), between(r, 10, 400), pick(r, []string{
				`Incompatible return value type (got "str | None", expected "str")  [return-value]`,
				`Argument 1 to "` + pick(r, v.comp.funcs) + `" has incompatible type "bytes"; expected "str"  [arg-type]`,
				`Item "None" of "Optional[dict[str, Any]]" has no attribute "get"  [union-attr]`,
				`Name "` + pick(r, v.comp.consts) + `" is not defined  [name-defined]`,
			}))
		}
		if errs == 0 {
			o.linef("Success: no issues found in %d source files", between(r, 30, 60))
		} else {
			o.linef("Found %d errors in %d files (checked %d source files)", errs, min(errs, len(files)), between(r, 30, 60))
		}
		return
	}
	for i := 0; i < errs; i++ {
		f := pick(r, files)
		o.linef("%s:%d:%d: %s", f, between(r, 1, 400), between(r, 1, 90), pick(r, []string{
			"F401 [*] `os` imported but unused",
			"E501 Line too long (107 > 100)",
			"F841 Local variable `" + pick(r, pyVars) + "` is assigned to but never used",
			"B006 Do not use mutable data structures for argument defaults",
			"UP007 [*] Use `X | Y` for type annotations",
		}))
	}
	if errs == 0 {
		o.line("All checks passed!")
	} else {
		o.linef("Found %d errors.\n[*] %d fixable with the `--fix` option.", errs, r.IntN(errs+1))
	}
}

// writePip writes pip install output; a missing pin makes it fail.
func writePip(o *out, r *rand.Rand, v vocab, badPin string) {
	o.linef("Obtaining file:///workspace/%s\n  Installing build dependencies ... done\n  Checking if build backend supports build_editable ... done", v.proj.name)
	if badPin != "" {
		o.linef("ERROR: Could not find a version that satisfies the requirement %s (from %s) (from versions: 1.0.0, 1.1.0, 1.2.3, 2.0.1)", badPin, v.proj.name)
		o.linef("ERROR: No matching distribution found for %s", badPin)
		return
	}
	var installed []string
	for _, d := range dependencies {
		ver := fmt.Sprintf("%d.%d.%d", between(r, 1, 6), r.IntN(30), r.IntN(10))
		o.linef("Collecting %s>=%d.0 (from %s==%s)\n  Using cached %s-%s-py3-none-any.whl (%d kB)", d, between(r, 1, 2), v.proj.name, v.proj.versionString(), strings.ReplaceAll(d, "-", "_"), ver, between(r, 12, 900))
		installed = append(installed, d+"-"+ver)
	}
	o.line("Building wheels for collected packages: " + v.proj.name)
	o.linef("Successfully installed %s %s-%s", strings.Join(installed, " "), v.proj.name, v.proj.versionString())
}

// writeGit writes the output of a git subcommand: status, diff, log or
// commit (with message msg).
func writeGit(o *out, r *rand.Rand, v vocab, sub string, files []string, msg string) {
	switch sub {
	case "status":
		o.line("On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)")
		for _, f := range files {
			o.linef("\tmodified:   %s", f)
		}
	case "diff":
		for _, f := range files {
			o.linef(" %-40s | %3d %s", f, between(r, 1, 80), strings.Repeat("+", between(r, 1, 20))+strings.Repeat("-", r.IntN(10)))
		}
		o.linef(" %d files changed, %d insertions(+), %d deletions(-)", len(files), between(r, 5, 200), between(r, 0, 80))
	case "log":
		for o.more() {
			o.b = fmt.Appendf(o.b, "%07x ", r.Uint32()&0xfffffff)
			o.expand(pick(r, []string{"Fix {f} when the {s} is empty", "Add tests for {f}", "Bump {s} dependency",
				"Document {c}", "Refactor {k} into smaller helpers", "Merge pull request #{n} from {p}/{s}-fix"}), r, v)
		}
	default: // commit
		o.linef("[main %07x] %s\n %d files changed, %d insertions(+), %d deletions(-)", r.Uint32()&0xfffffff, msg, max(1, len(files)), between(r, 3, 180), between(r, 0, 60))
	}
}
