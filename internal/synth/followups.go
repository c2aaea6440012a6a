package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// fuKind is a repair step queued after a failure.
type fuKind int

const (
	fuLocate          fuKind = iota // a file was missing: search for the right one
	fuReadFound                     // read the file the search found
	fuInspect                       // read the code a failure points at
	fuPatch                         // fix that code
	fuRerunTests                    // run the failing tests again
	fuStartServer                   // the dev server was down: start it
	fuRetryHTTP                     // repeat a refused request
	fuChmod                         // a script was not executable
	fuRerunCmd                      // repeat a shell command that now succeeds
	fuFixRequirements               // relax an unsatisfiable pin
	fuNarrow                        // rerun a subset after a timeout
	fuAltPath                       // write somewhere permitted instead
	fuRead                          // phase opening: read a file (thought in note)
	fuRunBug                        // phase opening: run the bug's failing test
)

// followUp is one queued repair step and what it refers to.
type followUp struct {
	kind fuKind
	path string   // file involved
	fn   string   // function involved
	cmd  string   // command, test scope or URL to repeat
	err  string   // the error the agent quotes
	test string   // failing test id
	note string   // fuRead: the thought
	size int      // fuRerunCmd: output size
	fill fillFunc // fuRerunCmd: output
}

// stepFollowUp performs the next queued repair step.
func (g *Generator) stepFollowUp(ph *phase) step {
	f := g.pending[0]
	g.pending = g.pending[1:]
	r := g.rng
	switch f.kind {
	case fuLocate:
		actual := g.compFile(ph)
		if f.note != "" { // the path existed earlier in the run
			c := g.ok(shellCall("git log --oneline --diff-filter=DR -n 5 -- "+f.path, between(r, 20, 200)), 0, func(o *out, r *rand.Rand) {
				o.linef("%07x Move or remove %s", r.Uint32()&0xfffffff, f.path)
			})
			return step{thought: fmt.Sprintf("Right, I moved or removed `%s` earlier in this session. Checking the git history for where it went.", f.path),
				calls: []*call{c}, solo: true}
		}
		v := g.voc(ph)
		c := g.ok(searchCall(r, "def "+f.fn, "src/"), sizeTiny(r), func(o *out, r *rand.Rand) {
			o.linef("%s:%d:def %s(raw: str, *, limit: int = %s) -> list[str]:", actual, between(r, 10, 300), f.fn, pick(r, v.comp.consts))
		})
		g.pending = append([]followUp{{kind: fuReadFound, path: actual, fn: f.fn}}, g.pending...)
		return step{thought: fmt.Sprintf(pick(r, []string{
			"`%s` doesn't exist. Searching for where `%s` is actually defined instead of guessing again.",
			"No such file: `%s`. It was probably renamed at some point; let me search for the definition of `%s`.",
		}), f.path, f.fn), calls: []*call{c}, solo: true}
	case fuReadFound:
		return step{thought: fmt.Sprintf("`%s` is defined in `%s`. Reading that file.", f.fn, f.path),
			calls: []*call{g.readFile(ph, f.path)}}
	case fuRead:
		return step{thought: f.note, calls: []*call{g.readFile(ph, f.path)}}
	case fuRunBug:
		fl := bugFailure(ph.bug)
		scope := ph.comp.test + "::" + ph.bug.test
		c := g.runTests(ph, scope, &fl, false)
		g.pending = append(g.pending, followUp{kind: fuInspect, path: fl.src, fn: fl.fn, err: fl.err, test: scope})
		return step{thought: fmt.Sprintf("Running `%s` on its own to see the failure first-hand.", scope), calls: []*call{c}, solo: true}
	case fuInspect:
		if f.test == "" { // a script, not a test
			return step{thought: fmt.Sprintf("The replay dies with `%s` inside `%s`. Reading `%s` to see how it handles that row.", f.err, f.fn, f.path),
				calls: []*call{g.readFile(ph, f.path)}}
		}
		return step{thought: fmt.Sprintf(pick(r, []string{
			"`%s` fails with `%s`. The innermost frame is in `%s`, so I'm reading `%s` next.",
			"So `%s` raises `%s`. That points at `%s`; let me read `%s` to understand why.",
		}), f.test, f.err, f.fn, f.path), calls: []*call{g.readFile(ph, f.path)}}
	case fuPatch:
		why := fmt.Sprintf("`%s` mishandles this input", f.fn)
		if ph.bug != nil && f.fn == ph.bug.fn {
			why = ph.bug.cause
		}
		if f.fn == "" {
			why = "the reported " + f.err
		}
		return step{thought: fmt.Sprintf(pick(r, []string{
			"Found it: %s. Patching `%s` accordingly.",
			"The cause is that %s. Fixing it in `%s` and keeping the public signature unchanged.",
		}), why, f.path), calls: []*call{g.modify(ph, f.path)}}
	case fuRerunTests:
		var fl *testFailure
		if ph.kind == kindFix && f.cmd != "tests/" && g.bugStillFails(ph) && chance(r, 1, 2) {
			b := bugFailure(ph.bug)
			fl = &b
			g.queueTestRepair(ph, b, f.cmd)
		}
		thought := fmt.Sprintf("Re-running `%s` to confirm the fix for `%s`.", f.cmd, f.test)
		if strings.HasSuffix(f.test, f.cmd) || strings.HasSuffix(f.cmd, f.test) {
			thought = fmt.Sprintf("Re-running `%s` to confirm the fix.", f.cmd)
		}
		return step{thought: thought,
			calls: []*call{g.runTests(ph, f.cmd, fl, false)}}
	case fuStartServer:
		v := g.voc(ph)
		cmd := fmt.Sprintf("nohup python -m %s.api.server --port %d > /tmp/%s-server.log 2>&1 &", g.proj.name, g.proj.port, g.proj.name)
		c := g.ok(shellCall(cmd, between(r, 800, 3000)), 0, func(o *out, r *rand.Rand) { writeServerStart(o, r, v) })
		g.serverUp = true
		return step{thought: fmt.Sprintf("Connection refused on %s: the dev server isn't running. Starting it in the background.", g.proj.host()),
			calls: []*call{c}, solo: true}
	case fuRetryHTTP:
		return step{thought: fmt.Sprintf("The server is up now; retrying %s.", f.cmd),
			calls: []*call{g.httpOK(ph, httpCall(r, f.cmd), f.cmd)}}
	case fuChmod:
		g.scriptsExec = true
		c := g.okText(shellCall("chmod +x scripts/*.sh", between(r, 5, 30)), "(no output)")
		return step{thought: fmt.Sprintf("`%s` lost its executable bit (exit 126, Permission denied), probably from the last checkout. Restoring it for all scripts.", f.path),
			calls: []*call{c}, solo: true}
	case fuRerunCmd:
		return step{thought: fmt.Sprintf("Running `%s` again now that the problem is fixed.", f.cmd),
			calls: []*call{g.ok(shellCall(f.cmd, between(r, 300, 20000)), f.size, f.fill)}}
	case fuFixRequirements:
		name := strings.SplitN(f.err, ">=", 2)[0]
		return step{thought: fmt.Sprintf("pip can't resolve `%s`: that version doesn't exist on the index. Relaxing the `%s` pin in requirements.txt.", f.err, name),
			calls: []*call{g.modify(ph, f.path)}}
	case fuNarrow:
		cmd := "pytest -q -x --timeout=60 " + f.cmd
		return step{thought: fmt.Sprintf(pick(r, []string{
			"The full suite hit the 300 s limit, most likely the network-marked tests waiting on %[1]s. Running only `%[2]s` with a per-test timeout.",
			"Timed out again on the whole suite. I'll stick to `%[2]s` with `--timeout=60` and leave the slow integration tests (they call %[1]s) to CI.",
			"That run was killed at 300 s. Narrowing it to `%[2]s`; a per-test timeout will tell me which test hangs.",
		}), g.proj.upstream, f.cmd),
			calls: []*call{g.runTests(ph, f.cmd, nil, false)}}.withCommand(cmd)
	case fuAltPath:
		dir := "~/.config/" + g.proj.name
		c := g.okText(shellCall(fmt.Sprintf("mkdir -p %s && cp config/settings.yaml %s/settings.yaml && echo ok", dir, dir), between(r, 5, 40)), "ok")
		return step{thought: fmt.Sprintf("No write access to `%s` in this sandbox. Putting the file under %s instead and pointing %s_SETTINGS_PATH at it.", f.path, dir, strings.ToUpper(g.proj.name)),
			calls: []*call{c}}
	}
	return g.stepThink(ph)
}

// withCommand replaces the shell command of the step's single call.
func (st step) withCommand(cmd string) step {
	c := st.calls[0]
	c.command = cmd
	c.args = shellArgs{cmd}
	return st
}

// failedCall reports whether c failed.
func failedCall(c *call) bool { return journal.IsFailureStatus(c.status) }
