package synth

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

// vocab is what placeholders in code templates draw from.
type vocab struct {
	comp *component
	proj *project
}

var (
	pyVars  = []string{"raw", "line", "fields", "rows", "batch", "key", "entry", "payload", "record", "attempts", "cfg", "ts", "chunk", "items", "resp", "header", "result", "value", "offset", "limit", "token", "job", "buf", "parts"}
	pyWords = []string{"header", "row", "delimiter", "ttl", "page", "cursor", "attempt", "bucket", "chunk", "claims", "source", "timestamp", "region", "endpoint", "schema"}
	pyErrs  = []string{"ValueError", "KeyError", "TimeoutError", "RuntimeError"}
	pyVerbs = []string{"Return", "Parse", "Load", "Normalize", "Validate", "Build", "Flush", "Resolve", "Split", "Collect"}

	// pyStmts are function-body statements at four-space indent.
	pyStmts = []string{
		"{v} = {f}({w})",
		`{v} = {w}.get("{s}", {c})`,
		"if not {v}:\n        raise {e}(\"empty {s}\")",
		"for {v} in {w}:\n        {f}({v})",
		`log.debug("{f}: {s}=%r", {v})`,
		`{v} = [part.strip() for part in {w}.split(DELIMITER)]`,
		"if len({v}) > {c}:\n        raise {e}(f\"too many {s}s: {len({v})}\")",
		"deadline = time.monotonic() + {c}",
		"while attempts < {c}:\n        attempts += 1\n        time.sleep(BACKOFF_BASE_MS / 1000 * 2 ** attempts)",
		"{v}: dict[str, Any] = {}",
		`{v}.sort(key=lambda item: item["{s}"])`,
		"with open({v}, \"rb\") as fh:\n        {w} = fh.read(CHUNK_SIZE)",
		"try:\n        {v} = {f}({w})\n    except {e} as exc:\n        log.warning(\"{f} failed: %s\", exc)\n        {v} = None",
		`assert {v} is not None, "{s} must be set"`,
		`{v} = settings.get("{s}", {c})`,
		"if {v} is None:\n        return None",
		"{v} = {k}({w}, {s}={n})",
		"{v} = os.environ.get(\"{P}_{S}\", \"\")",
		"{v}.append({f}({w}))",
		"{v} = min({w}, {c})",
		"if isinstance({v}, bytes):\n        {v} = {v}.decode(\"utf-8\", errors=\"replace\")",
		"# {s}s arrive unordered from upstream; keep the first one we see",
		"{v} = {w}[offset : offset + limit]",
		"{v} = time.monotonic() - {w}",
		"yield from {f}({v})",
	}
	pyReturns = []string{"return {v}", "return {f}({v})", "return {k}({v})", "return {v}, {w}", "return len({v}) == {c}", "return None"}
)

// appendExpanded appends tmpl with its {x} placeholders filled in.
func appendExpanded(b []byte, tmpl string, r *rand.Rand, v vocab) []byte {
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '{' || i+2 >= len(tmpl) || tmpl[i+2] != '}' {
			b = append(b, tmpl[i])
			continue
		}
		switch tmpl[i+1] {
		case 'v', 'w':
			b = append(b, pick(r, pyVars)...)
		case 'c':
			if r.IntN(3) == 0 {
				b = append(b, pick(r, commonConsts)...)
			} else {
				b = append(b, pick(r, v.comp.consts)...)
			}
		case 'f':
			b = append(b, pick(r, v.comp.funcs)...)
		case 'k':
			b = append(b, pick(r, v.comp.classes)...)
		case 'e':
			b = append(b, pick(r, pyErrs)...)
		case 's':
			b = append(b, pick(r, pyWords)...)
		case 'S':
			b = append(b, strings.ToUpper(pick(r, pyWords))...)
		case 'n':
			b = fmt.Appendf(b, "%d", between(r, 1, 500))
		case 'P':
			b = append(b, strings.ToUpper(v.proj.name)...)
		case 'p':
			b = append(b, v.proj.name...)
		case 'm':
			b = append(b, v.comp.name...)
		default:
			b = append(b, tmpl[i:i+3]...)
		}
		i += 2
	}
	return b
}

// expand appends an expanded template as a line.
func (o *out) expand(tmpl string, r *rand.Rand, v vocab) {
	if len(o.b) <= o.limit {
		o.b = appendExpanded(o.b, tmpl, r, v)
		o.b = append(o.b, '\n')
	}
}

// writeFile fills o with plausible content for the file at p, chosen by its
// name and extension.
func writeFile(o *out, r *rand.Rand, v vocab, p string) {
	base := path.Base(p)
	switch {
	case strings.HasPrefix(base, "test_") || base == "conftest.py":
		writeTestModule(o, r, v, p)
	case strings.HasSuffix(p, ".py"):
		writePyModule(o, r, v, p)
	case strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml"):
		writeYAML(o, r, v)
	case base == "CHANGELOG.md":
		writeChangelog(o, r, v)
	case strings.HasSuffix(p, ".md"):
		writeMarkdown(o, r, v, p)
	case strings.HasSuffix(p, ".csv"):
		writeCSV(o, r)
	case strings.HasSuffix(p, ".sh"):
		writeShellScript(o, r, v)
	case base == "pyproject.toml":
		writePyproject(o, r, v)
	case strings.HasPrefix(base, "requirements"):
		for _, d := range dependencies {
			o.linef("%s>=%d.%d", d, between(r, 1, 6), r.IntN(30))
		}
	default:
		for o.more() {
			o.expand("{s}: {n}  # {s} for {p}", r, v)
		}
	}
}

// writePyModule writes a Python module of about o.target bytes.
func writePyModule(o *out, r *rand.Rand, v vocab, p string) {
	o.linef(`"""%s"""`, v.comp.doc)
	o.line("")
	o.line("from __future__ import annotations")
	o.line("")
	o.line("import logging\nimport os\nimport time\nfrom dataclasses import dataclass, field\nfrom typing import Any, Iterable, Iterator")
	o.line("")
	o.linef("from %s.settings import settings", "config")
	o.linef("from %s import %s", pyModule(path.Dir(p)+"/schema"), pick(r, v.comp.classes))
	o.line("")
	o.line("log = logging.getLogger(__name__)")
	o.line("")
	for _, c := range v.comp.consts {
		o.linef("%s = %s", c, constValue(r, v, c, true))
	}
	o.linef("RETRY_BUDGET = int(os.environ.get(\"%s_RETRY_BUDGET\", \"3\"))", strings.ToUpper(v.proj.name))
	for o.more() {
		o.line("")
		o.line("")
		switch r.IntN(7) {
		case 0:
			o.expand("class {k}(Exception):\n    \"\"\"Raised when a {s} cannot be processed.\"\"\"", r, v)
		case 1:
			o.expand("@dataclass\nclass {k}:\n    \"\"\"One {s} as read from upstream.\"\"\"\n\n    {v}: str\n    {w}: int = {c}\n    {s}s: list[str] = field(default_factory=list)", r, v)
		default:
			writePyFunc(o, r, v)
		}
	}
}

// writePyFunc writes one top-level function.
func writePyFunc(o *out, r *rand.Rand, v vocab) {
	fn := pick(r, v.comp.funcs)
	if r.IntN(3) > 0 {
		fn = "_" + fn + "_" + pick(r, pyWords)
	}
	o.linef("def %s(%s: %s, *, %s: int = %s) -> %s:", fn, pick(r, pyVars),
		pick(r, []string{"str", "bytes", "Iterable[str]", "dict[str, Any]"}), pick(r, pyVars),
		pick(r, v.comp.consts), pick(r, []string{"list[str]", "int", "bool", "dict[str, Any]", "Iterator[str]", "None"}))
	o.linef(`    """%s the %s for %s."""`, pick(r, pyVerbs), pick(r, pyWords), pick(r, pyWords))
	for n := between(r, 3, 11); n > 0; n-- {
		o.b = append(o.b, "    "...)
		o.expand(pick(r, pyStmts), r, v)
	}
	o.b = append(o.b, "    "...)
	o.expand(pick(r, pyReturns), r, v)
}

// writeTestModule writes a pytest module.
func writeTestModule(o *out, r *rand.Rand, v vocab, p string) {
	o.linef(`"""Tests for %s."""`, v.comp.name)
	o.line("")
	o.line("import pathlib")
	o.line("")
	o.line("import pytest")
	o.line("")
	o.linef("from %s.%s import %s", v.comp.name, strings.TrimSuffix(path.Base(v.comp.files[0]), ".py"), strings.Join(v.comp.funcs[:2], ", "))
	o.linef("from %s import %s", v.comp.name, v.comp.classes[0])
	o.line("")
	o.line("FIXTURES = pathlib.Path(__file__).parent / \"fixtures\"")
	for o.more() {
		o.line("")
		o.line("")
		fn := pick(r, v.comp.funcs)
		if r.IntN(4) == 0 {
			o.linef("@pytest.mark.parametrize(\"%s\", [%d, %d, %d])", pick(r, pyVars), r.IntN(10), between(r, 10, 99), between(r, 100, 999))
		}
		o.linef("def test_%s_%s(%s):", fn, pick(r, pyWords), pick(r, []string{"tmp_path", "monkeypatch", "sample_rows", "caplog", "client"}))
		for n := between(r, 2, 6); n > 0; n-- {
			o.b = append(o.b, "    "...)
			o.expand(pick(r, []string{"{v} = {f}({w})", "assert {v} == {n}", "assert {f}({v}) is not None",
				`{v} = FIXTURES / "{s}.csv"`, "with pytest.raises({k}):\n        {f}({v})", `monkeypatch.setenv("{P}_{S}", "{n}")`,
				`assert "{s}" in caplog.text`}), r, v)
		}
	}
}

// writeYAML writes a settings-style YAML file: one section per component,
// then per-environment profiles until the file is long enough.
func writeYAML(o *out, r *rand.Rand, v vocab) {
	o.linef("# Settings for %s. Environment variables %s_* override these values.", v.proj.name, strings.ToUpper(v.proj.name))
	o.line("server:")
	o.linef("  host: 0.0.0.0\n  port: %d\n  request_timeout: %d", v.proj.port, between(r, 5, 60))
	section := func(indent string, c *component) {
		o.linef("%s%s:", indent, c.name)
		for _, k := range c.consts {
			o.linef("%s  %s: %s", indent, strings.ToLower(k), constValue(r, v, k, false))
		}
		o.linef("%s  enabled: %t", indent, r.IntN(4) > 0)
	}
	for i := range componentBank {
		section("", &componentBank[i])
	}
	for _, env := range []string{"staging", "production", "ci", "load-test"} {
		if !o.more() {
			return
		}
		o.linef("profile_%s:", strings.ReplaceAll(env, "-", "_"))
		for i := range componentBank {
			if r.IntN(2) == 0 {
				section("  ", &componentBank[i])
			}
		}
	}
}

// constValue returns a plausible value for the setting or constant name, as
// Python source (py) or YAML.
func constValue(r *rand.Rand, v vocab, name string, py bool) string {
	q := func(s string) string { return `"` + s + `"` }
	switch {
	case strings.HasSuffix(name, "_URL"):
		return q(v.proj.upstream + "/.well-known/jwks.json")
	case strings.HasSuffix(name, "_PATH"):
		return q("/etc/" + v.proj.name + "/settings.yaml")
	case strings.HasSuffix(name, "PREFIX"):
		return q("/api/v1")
	case name == "DELIMITER":
		return q(",")
	case name == "LOG_LEVEL":
		return q("INFO")
	case strings.HasSuffix(name, "NAMESPACE"):
		return q(v.proj.name)
	case strings.HasSuffix(name, "BUCKETS"):
		return "[0.05, 0.1, 0.5, 1.0]"
	case strings.HasSuffix(name, "TIMEOUT") || strings.HasSuffix(name, "INTERVAL"):
		return fmt.Sprintf("%d.0", between(r, 1, 60))
	case strings.HasSuffix(name, "_SIZE") && py:
		return fmt.Sprintf("%d * 1024", 1<<between(r, 2, 8))
	default:
		return fmt.Sprint(pick(r, []int{3, 5, 10, 30, 50, 100, 250, 500, 1000, 3600}))
	}
}

// writeMarkdown writes a documentation page.
func writeMarkdown(o *out, r *rand.Rand, v vocab, p string) {
	title := capitalize(strings.ReplaceAll(strings.TrimSuffix(path.Base(p), ".md"), "-", " "))
	if title == "README" || title == "Index" {
		title = v.proj.name
	}
	o.linef("# %s", title)
	o.line("")
	for o.more() {
		switch r.IntN(4) {
		case 0:
			o.linef("## %s", capitalize(pick(r, pyWords))+" handling")
		case 1:
			o.linef("```bash\n%s\n```", pick(r, []string{"pip install -e '.[dev]'", "make test", "pytest -q", "python -m " + v.proj.name + ".api.server --port " + fmt.Sprint(v.proj.port)}))
		case 2:
			o.line("| Setting | Default | Description |\n|---|---|---|")
			for _, k := range v.comp.consts {
				o.linef("| `%s` | %d | Limits the %s. |", strings.ToLower(k), between(r, 1, 900), pick(r, pyWords))
			}
		default:
			o.expand("The {s} is read by `{f}` and validated against `{c}`; when the {s} is missing the {k} falls back to the default from `config/settings.yaml`.", r, v)
		}
		o.line("")
	}
}

// writeCSV writes a data fixture.
func writeCSV(o *out, r *rand.Rand) {
	o.line("id,name,ts,payload,source")
	for i := 1; o.more(); i++ {
		o.linef("%d,%s-%d,2025-09-%02dT%02d:%02d:00Z,\"{\"\"%s\"\": %d}\",%s", i, pick(r, pyWords), r.IntN(1000),
			between(r, 1, 30), r.IntN(24), r.IntN(60), pick(r, pyWords), r.IntN(100), pick(r, []string{"s3", "api", "sftp"}))
	}
}

// writeShellScript writes a helper script.
func writeShellScript(o *out, r *rand.Rand, v vocab) {
	o.line("#!/usr/bin/env bash\nset -euo pipefail")
	o.line("")
	o.linef("cd \"$(dirname \"$0\")/..\"\nVERSION=\"$(python -c 'import %s; print(%s.__version__)')\"", v.proj.name, v.proj.name)
	for o.more() {
		o.line(pick(r, []string{"python -m build", "twine check dist/*", "git tag -a \"v$VERSION\" -m \"Release v$VERSION\"",
			"pytest -q", "echo \"building $VERSION\"", "rm -rf build/ dist/", "ruff check src tests"}))
	}
}

// writePyproject writes pyproject.toml.
func writePyproject(o *out, r *rand.Rand, v vocab) {
	o.linef("[project]\nname = \"%s\"\nversion = \"%s\"\nrequires-python = \">=3.9\"\ndependencies = [", v.proj.name, v.proj.versionString())
	for _, d := range dependencies[:between(r, 3, len(dependencies))] {
		o.linef("  \"%s>=%d.%d\",", d, between(r, 1, 6), r.IntN(20))
	}
	o.line("]\n\n[project.optional-dependencies]\ndev = [\"pytest>=8\", \"ruff\", \"mypy\", \"build\", \"twine\"]")
	o.line("\n[tool.pytest.ini_options]\naddopts = \"-ra\"\ntestpaths = [\"tests\"]\n\n[tool.ruff]\nline-length = 100")
}

// writeChangelog writes CHANGELOG.md, newest release first.
func writeChangelog(o *out, r *rand.Rand, v vocab) {
	o.line("# Changelog\n\n## Unreleased\n")
	ver := v.proj.version
	for o.more() && ver[1] >= 0 {
		o.linef("## %d.%d.%d - 2025-%02d-%02d\n", ver[0], ver[1], ver[2], between(r, 1, 9), between(r, 1, 28))
		for n := between(r, 2, 5); n > 0; n-- {
			o.b = append(o.b, "- "...)
			o.expand(pick(r, []string{"Fix `{f}` when the {s} is empty.", "Add `{c}` setting.", "Speed up `{f}` for large {s}s.",
				"Document the {s} options.", "Drop support for the legacy {s} format."}), r, v)
		}
		o.line("")
		if ver[2] > 0 {
			ver[2]--
		} else {
			ver[1]--
			ver[2] = between(r, 0, 3)
		}
	}
}
