package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// weighted is a step the agent may take, with its relative weight.
type weighted struct {
	w  int
	fn func(*Generator, *phase) step
}

// workSteps lists, per phase kind, the ordinary steps and their weights.
// Read-only.
var workSteps = [...][]weighted{
	kindExplore: {{22, (*Generator).stepList}, {30, (*Generator).stepRead}, {6, (*Generator).stepReadMissing},
		{14, (*Generator).stepSearch}, {6, (*Generator).stepGit}, {5, (*Generator).stepHTTPExternal},
		{2, (*Generator).stepPip}, {5, (*Generator).stepTests}, {4, (*Generator).stepHTTPLocal}, {2, (*Generator).stepScript}},
	kindReproduce: {{22, (*Generator).stepRead}, {22, (*Generator).stepTests}, {12, (*Generator).stepSearch},
		{5, (*Generator).stepReadMissing}, {8, (*Generator).stepWriteCreate}, {6, (*Generator).stepReplay},
		{3, (*Generator).stepTimeout}, {6, (*Generator).stepList}, {3, (*Generator).stepGit}, {4, (*Generator).stepHTTPLocal}},
	kindFix: {{22, (*Generator).stepRead}, {20, (*Generator).stepWriteModify}, {18, (*Generator).stepTests},
		{10, (*Generator).stepSearch}, {6, (*Generator).stepLint}, {4, (*Generator).stepReadMissing},
		{4, (*Generator).stepReplay}, {4, (*Generator).stepGit}, {3, (*Generator).stepList}, {3, (*Generator).stepDelete}},
	kindFeature: {{16, (*Generator).stepWriteCreate}, {16, (*Generator).stepWriteModify}, {16, (*Generator).stepRead},
		{14, (*Generator).stepTests}, {8, (*Generator).stepHTTPLocal}, {5, (*Generator).stepPip}, {5, (*Generator).stepLint},
		{4, (*Generator).stepList}, {5, (*Generator).stepSearch}, {3, (*Generator).stepMove}, {2, (*Generator).stepCopyConfig},
		{3, (*Generator).stepReadMissing}, {3, (*Generator).stepGit}, {2, (*Generator).stepHTTPExternal}},
	kindTests: {{12, (*Generator).stepWriteCreate}, {14, (*Generator).stepWriteModify}, {24, (*Generator).stepTests},
		{14, (*Generator).stepRead}, {6, (*Generator).stepSearch}, {4, (*Generator).stepLint}, {3, (*Generator).stepTimeout},
		{3, (*Generator).stepReadMissing}, {3, (*Generator).stepList}, {2, (*Generator).stepDelete}, {2, (*Generator).stepMove}},
	kindRefactor: {{12, (*Generator).stepMove}, {12, (*Generator).stepWriteCreate}, {16, (*Generator).stepWriteModify},
		{8, (*Generator).stepDelete}, {16, (*Generator).stepTests}, {10, (*Generator).stepSearch}, {12, (*Generator).stepRead},
		{6, (*Generator).stepLint}, {4, (*Generator).stepReadMissing}, {4, (*Generator).stepList}},
	kindDocs: {{12, (*Generator).stepWriteCreate}, {18, (*Generator).stepWriteModify}, {18, (*Generator).stepRead},
		{8, (*Generator).stepMove}, {6, (*Generator).stepDelete}, {6, (*Generator).stepHTTPExternal}, {6, (*Generator).stepList},
		{6, (*Generator).stepSearch}, {3, (*Generator).stepScript}, {3, (*Generator).stepGit}, {3, (*Generator).stepHTTPLocal}},
	kindRelease: {{14, (*Generator).stepWriteModify}, {12, (*Generator).stepTests}, {12, (*Generator).stepScript},
		{8, (*Generator).stepPip}, {10, (*Generator).stepDelete}, {10, (*Generator).stepHTTPExternal}, {10, (*Generator).stepGit},
		{10, (*Generator).stepRead}, {4, (*Generator).stepLint}, {3, (*Generator).stepCopyConfig}, {3, (*Generator).stepList},
		{4, (*Generator).stepHTTPLocal}},
}

// iteration appends the events of one iteration to g.evs.
func (g *Generator) iteration() {
	r := g.rng
	ph := g.phases[0]
	var lead []string
	if g.ack != "" {
		lead = append(lead, g.ack)
		g.ack = ""
	}
	if ph.done == 0 {
		g.pending = g.openingSteps(ph, g.pending[:0])
		g.serverUp = g.serverUp && chance(r, 1, 2)
		if ph.cycle > 0 && ph.kind == kindReproduce { // a cycle after the first starts with a new request
			g.emit(journal.TypeUserMessage, journal.TextPayload{Content: followUpText(r, g.proj, g.cyclePhases(ph.cycle))}, between(r, 20_000, 300_000))
			lead = append(lead, "New request from the user: the "+ph.bug.title+" in `"+ph.comp.test+"` is failing.")
		}
		if s := phaseOpening(r, ph); s != "" {
			lead = append(lead, s)
		}
	} else if g.iter > 3 && chance(r, 1, 60) {
		note := userNoteFor(r, g.proj, ph)
		g.emit(journal.TypeUserMessage, journal.TextPayload{Content: note.text}, between(r, 1000, 60_000))
		lead = append(lead, note.ack)
	}
	if g.iter > 2 && chance(r, 1, 90) {
		g.emit(journal.TypeSystemMessage, journal.SystemMessagePayload{Level: "WARN", Content: pick(r, []string{
			fmt.Sprintf("context window at %d%% of the model limit; older observations may be summarized", between(r, 70, 92)),
			"LLM invocation retried after HTTP 429 (rate limited)",
			fmt.Sprintf("tool run_shell exceeded soft time limit (%d s)", between(r, 60, 120)),
		})}, between(r, 5, 200))
	}

	var st step
	switch {
	case ph.done == ph.length-1:
		g.pending = g.pending[:0]
		st = g.closingStep(ph)
	case ph.done == ph.length-2:
		g.pending = g.pending[:0]
		st = g.verifyStep(ph)
	case len(g.pending) > 0:
		st = g.stepFollowUp(ph)
	case chance(r, 1, 25):
		st = g.stepThink(ph)
	default:
		st = g.workStep(ph)
	}
	if !st.solo && len(st.calls) == 1 && !failedCall(st.calls[0]) && chance(r, 3, 20) {
		if extra, note := g.extraCall(ph, st.calls[0]); extra != nil {
			st.calls = append(st.calls, extra)
			st.thought += " " + note
		}
	}
	g.emitIteration(strings.Join(append(lead, st.thought), " "), st.calls)
	if g.iter == g.hookAt[0] || g.iter == g.hookAt[1] {
		g.emit(journal.TypeHookAudit, hookAudit{
			HookName: pick(r, []string{"post_tool_use", "pre_llm_invocation"}), Status: "SUCCESS",
			IOPathRef: fmt.Sprintf("hooks/%06d/io.json", g.iter),
		}, between(r, 2, 50))
	}

	ph.done++
	if ph.done == ph.length {
		g.phases = g.phases[1:]
		g.planAhead()
	}
}

// openingSteps appends the first steps of phase ph to fs.
func (g *Generator) openingSteps(ph *phase, fs []followUp) []followUp {
	switch ph.kind {
	case kindReproduce:
		return append(fs, followUp{kind: fuRead, path: ph.comp.test,
			note: fmt.Sprintf("First I want to see what `%s` actually asserts; reading `%s`.", ph.bug.test, ph.comp.test)},
			followUp{kind: fuRunBug})
	case kindFix:
		return append(fs, followUp{kind: fuRead, path: ph.comp.files[0],
			note: fmt.Sprintf("Starting with `%s`, where `%s` lives, to confirm the suspicion from the reproduction notes.", ph.comp.files[0], ph.bug.fn)})
	case kindDocs:
		return append(fs, followUp{kind: fuRead, path: "README.md",
			note: "Reading README.md first so the new docs match its structure and tone."})
	case kindRelease:
		return append(fs, followUp{kind: fuRead, path: "CHANGELOG.md",
			note: fmt.Sprintf("Checking CHANGELOG.md to see what has to go into the v%s entry.", ph.version)})
	}
	return fs
}

// hookAudit is the payload of HOOK_EXECUTION_AUDIT, an event type the folding
// engine does not interpret.
type hookAudit struct {
	HookName  string `json:"hook_name"`
	Status    string `json:"status"`
	IOPathRef string `json:"io_path_ref"`
}

// workStep picks an ordinary step for the phase by weight.
func (g *Generator) workStep(ph *phase) step {
	steps := workSteps[ph.kind]
	total := 0
	for _, s := range steps {
		total += s.w
	}
	n := g.rng.IntN(total)
	for _, s := range steps {
		if n < s.w {
			return s.fn(g, ph)
		}
		n -= s.w
	}
	return g.stepThink(ph)
}

// extraCall is a cheap second call some iterations add; nil if it would
// repeat first.
func (g *Generator) extraCall(ph *phase, first *call) (*call, string) {
	r := g.rng
	kind := r.IntN(3)
	if first.command == [...]string{"git status --short", "cat config/settings.yaml", "ls -la src/" + ph.comp.name}[kind] {
		return nil, ""
	}
	switch kind {
	case 0:
		files := g.reg.under("src/" + ph.comp.name + "/")
		return g.ok(shellCall("git status --short", between(r, 10, 80)), 0, func(o *out, r *rand.Rand) {
			for _, f := range files {
				if r.IntN(3) == 0 {
					o.line(" M " + f)
				}
			}
			o.line("?? .pytest_cache/")
		}), "I'll also check `git status --short` to be sure nothing unexpected changed."
	case 1:
		return g.readFile(ph, "config/settings.yaml"), "Also reading config/settings.yaml to confirm the defaults."
	default:
		dir := "src/" + ph.comp.name
		entries := g.reg.children(dir)
		return g.ok(listCall(r, dir), 0, func(o *out, r *rand.Rand) { writeListing(o, r, entries) }),
			fmt.Sprintf("And a listing of `%s` for context.", dir)
	}
}

// planAhead makes sure the phase after the current one is planned. Every
// cycle ends with a release, whose version the next cycle bumps.
func (g *Generator) planAhead() {
	for len(g.phases) < 2 {
		last := g.phases[len(g.phases)-1]
		g.phases = append(g.phases, planCycle(g.rng, g.proj, g.cycle, last.num+1, last.ver)...)
		g.cycle++
	}
}

// cyclePhases returns the planned phases of cycle, starting with the current.
func (g *Generator) cyclePhases(cycle int) []*phase {
	var ps []*phase
	for _, ph := range g.phases {
		if ph.cycle == cycle {
			ps = append(ps, ph)
		}
	}
	return ps
}
