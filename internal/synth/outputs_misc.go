package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var months = []string{"Sep", "Oct"}

// writeListing writes `ls -la` output for entries (subdirectories end in /).
func writeListing(o *out, r *rand.Rand, entries []string) {
	o.linef("total %d", between(r, 8, 400))
	o.linef("drwxr-xr-x  %d agent agent  4096 Oct  2 09:%02d .", between(r, 2, 9), r.IntN(60))
	o.linef("drwxr-xr-x %2d agent agent  4096 Oct  2 09:%02d ..", between(r, 3, 14), r.IntN(60))
	for _, e := range entries {
		if strings.HasSuffix(e, "/") {
			o.linef("drwxr-xr-x  %d agent agent  4096 %s %2d %02d:%02d %s", between(r, 2, 6), pick(r, months), between(r, 1, 30), r.IntN(24), r.IntN(60), strings.TrimSuffix(e, "/"))
			continue
		}
		mode := "-rw-r--r--"
		if strings.HasSuffix(e, ".sh") && r.IntN(2) == 0 {
			mode = "-rwxr-xr-x"
		}
		o.linef("%s  1 agent agent %5d %s %2d %02d:%02d %s", mode, between(r, 40, 40000), pick(r, months), between(r, 1, 30), r.IntN(24), r.IntN(60), e)
	}
	if r.IntN(3) == 0 {
		o.linef("drwxr-xr-x  2 agent agent  4096 Oct  2 09:%02d __pycache__", r.IntN(60))
	}
}

// writeFind writes a recursive listing (find . -name '*.py'), which grows
// long once it reaches the virtualenv.
func writeFind(o *out, r *rand.Rand, files []string) {
	for _, f := range files {
		o.line("./" + f)
	}
	for o.more() {
		o.linef("./.venv/lib/python3.11/site-packages/%s/%s/%s.py", strings.ToLower(pick(r, dependencies)), pick(r, pyWords), pick(r, pyWords))
	}
}

// writeGrep writes grep -rn style matches of query in files.
func writeGrep(o *out, r *rand.Rand, v vocab, query string, files []string) {
	if len(files) == 0 {
		return
	}
	tmpls := []string{"def %s(raw: str, *, limit: int = DEFAULT_PAGE_SIZE) -> list[str]:", "    result = %s(payload)",
		"from .core import %s", "        return %s(batch, timeout=DEFAULT_TIMEOUT)",
		"    log.debug(\"calling %s\")", "    # TODO: %s should not swallow errors", "    assert %s(rows) == expected"}
	if strings.ToUpper(query) == query {
		tmpls = []string{"%s = int(os.environ.get(\"" + strings.ToUpper(v.proj.name) + "_%[1]s\", \"3\"))", "    if attempts >= %s:",
			"    timeout = settings.get(\"timeout\", %s)", "from .defaults import %s", "    deadline = time.monotonic() + %s"}
	}
	for o.more() {
		f := pick(r, files)
		o.linef("%s:%d:%s", f, between(r, 1, 420), fmt.Sprintf(pick(r, tmpls), query))
		if r.IntN(12) == 0 {
			return
		}
	}
}

// writeRecordsJSON writes a paginated JSON body from the local API.
func writeRecordsJSON(o *out, r *rand.Rand, v vocab) {
	o.line(`{"items": [`)
	for i := 0; o.more(); i++ {
		if i > 0 {
			o.b = append(o.b[:len(o.b)-1], ",\n"...)
		}
		o.linef(`  {"id": %d, "name": "%s-%d", "ts": "2025-09-%02dT%02d:%02d:%02dZ", "source": "%s", "size_bytes": %d, "tags": ["%s", "%s"], "checksum": "%016x"}`,
			between(r, 1000, 99999), pick(r, pyWords), r.IntN(1000), between(r, 1, 30), r.IntN(24), r.IntN(60), r.IntN(60),
			pick(r, []string{"s3", "api", "sftp"}), r.IntN(1<<20), pick(r, pyWords), pick(r, pyWords), r.Uint64())
	}
	o.linef(`], "next_cursor": "%x", "page_size": %d}`, r.Uint32(), between(r, 20, 200))
}

// writeHealthJSON writes the dev server's health response.
func writeHealthJSON(o *out, r *rand.Rand, v vocab) {
	o.linef(`{"status": "ok", "version": "%s", "uptime_s": %d, "checks": {"db": "ok", "cache": "ok"}}`, v.proj.versionString(), between(r, 1, 5000))
}

// writePyPIJSON writes a trimmed PyPI JSON API response for dep.
func writePyPIJSON(o *out, r *rand.Rand, dep string) {
	o.linef(`{"info": {"name": "%s", "summary": "%s", "requires_python": ">=3.8", "version": "%d.%d.%d"},`, dep, "Python package "+dep, between(r, 1, 6), r.IntN(30), r.IntN(10))
	o.line(` "releases": {`)
	for i := 0; o.more(); i++ {
		if i > 0 {
			o.b = append(o.b[:len(o.b)-1], ",\n"...)
		}
		ver := fmt.Sprintf("%d.%d.%d", between(r, 0, 6), r.IntN(40), r.IntN(10))
		o.linef(`  "%s": [{"filename": "%s-%s-py3-none-any.whl", "size": %d, "upload_time": "202%d-%02d-%02dT%02d:%02d:00", "yanked": false}]`,
			ver, strings.ReplaceAll(dep, "-", "_"), ver, between(r, 10000, 900000), between(r, 0, 5), between(r, 1, 12), between(r, 1, 28), r.IntN(24), r.IntN(60))
	}
	o.line(" }}")
}

// writeIssuesJSON writes a GitHub issues API response.
func writeIssuesJSON(o *out, r *rand.Rand, v vocab) {
	o.line("[")
	for i := 0; o.more(); i++ {
		if i > 0 {
			o.b = append(o.b[:len(o.b)-1], ",\n"...)
		}
		n := between(r, 100, 999)
		o.b = fmt.Appendf(o.b, `  {"number": %d, "state": "open", "html_url": "https://github.com/%s/%s/issues/%d", "title": "`, n, v.proj.owner, v.proj.name, n)
		o.b = appendExpanded(o.b, pick(r, []string{"{f} fails on {s} with trailing whitespace", "{c} is ignored when set via env",
			"Crash in {k} after upgrade", "Docs: explain {s} settings"}), r, v)
		o.linef(`", "labels": [{"name": "%s"}], "comments": %d}`, pick(r, []string{"bug", "enhancement", "docs"}), r.IntN(20))
	}
	o.line("]")
}

// writeHTMLDoc writes the text of an external documentation page.
func writeHTMLDoc(o *out, r *rand.Rand, v vocab, title string) {
	o.linef("<!DOCTYPE html>\n<html lang=\"en\"><head><title>%s</title></head><body>", title)
	for o.more() {
		o.b = append(o.b, "<p>"...)
		o.b = appendExpanded(o.b, pick(r, []string{"The {s} argument controls how each {s} is parsed; it defaults to None.",
			"Raises ValueError if the {s} is malformed.", "New in version 3.{n}.", "See also the section on {s} handling."}), r, v)
		o.line("</p>")
	}
	o.line("</body></html>")
}

// writeMetricsText writes Prometheus exposition text.
func writeMetricsText(o *out, r *rand.Rand, v vocab) {
	ns := v.proj.name
	o.linef("# HELP %s_request_latency_seconds Request latency.\n# TYPE %s_request_latency_seconds histogram", ns, ns)
	for o.more() {
		route := pick(r, []string{"/api/v1/records", "/healthz", "/api/v1/jobs", "/metrics"})
		for _, le := range []string{"0.05", "0.1", "0.5", "1.0", "+Inf"} {
			o.linef(`%s_request_latency_seconds_bucket{route="%s",le="%s"} %d`, ns, route, le, r.IntN(5000))
		}
	}
}

// writeServerStart writes what starting the dev server in the background
// prints.
func writeServerStart(o *out, r *rand.Rand, v vocab) {
	o.linef("[1] %d", between(r, 20000, 65000))
	o.linef("INFO:     Started server process [%d]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.", between(r, 20000, 65000))
	o.linef("INFO:     Uvicorn running on http://127.0.0.1:%d (Press CTRL+C to quit)", v.proj.port)
}

// writeBuild writes python -m build output.
func writeBuild(o *out, r *rand.Rand, v vocab, version string) {
	o.line("* Creating isolated environment: venv+pip...\n* Installing packages in isolated environment:\n  - setuptools>=68\n  - wheel\n* Getting build dependencies for sdist...")
	for o.more() {
		o.b = append(o.b, "copying "...)
		o.expand("src/{m}/{s}.py -> build/lib/{p}/{s}.py", r, v)
	}
	o.linef("Successfully built %s-%s.tar.gz and %s-%s-py3-none-any.whl", v.proj.name, version, v.proj.name, version)
}

// writeScriptRun writes what running a helper script prints.
func writeScriptRun(o *out, r *rand.Rand, v vocab, script string) {
	version := v.proj.versionString()
	if strings.Contains(script, "release") {
		o.linef("+ python -m build\nSuccessfully built %s-%s.tar.gz and %s-%s-py3-none-any.whl", v.proj.name, version, v.proj.name, version)
		o.line("+ twine check dist/*\nChecking dist/" + v.proj.name + "-" + version + "-py3-none-any.whl: PASSED")
		o.linef("dry run: would upload 2 files and tag v%s", version)
		return
	}
	o.linef("+ python -m %s.api.server --check --port %d", v.proj.name, v.proj.port)
	o.linef("config OK: %d settings loaded from config/settings.yaml", between(r, 12, 40))
	o.line("routes OK: /healthz /metrics /api/v1/records /api/v1/jobs")
}
