package synth

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// step is what the agent does in one iteration: its thought and tool calls.
type step struct {
	thought string
	calls   []*call
	solo    bool // do not add a second, incidental call
}

func (g *Generator) voc(ph *phase) vocab { return vocab{comp: ph.comp, proj: g.proj} }

// compFile returns an existing source file of the phase's component.
func (g *Generator) compFile(ph *phase) string {
	fs := g.reg.under("src/" + ph.comp.name + "/")
	if len(fs) == 0 {
		fs = g.reg.under("src/")
	}
	if len(fs) == 0 {
		return ph.comp.test
	}
	return pick(g.rng, fs)
}

// constOf returns a constant the phase's code uses.
func (g *Generator) constOf(ph *phase) string {
	if chance(g.rng, 1, 4) {
		return pick(g.rng, commonConsts)
	}
	return pick(g.rng, ph.comp.consts)
}

// fileSize is the planned size of the file at p.
func fileSize(r *rand.Rand, p string) int {
	switch {
	case strings.HasSuffix(p, ".py"):
		return sizeFile(r)
	case strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".csv"):
		return sizeMedium(r)
	default:
		return sizeSmall(r)
	}
}

// readFile returns a successful read of p.
func (g *Generator) readFile(ph *phase, p string) *call {
	v := g.voc(ph)
	if c := compForPath(p); c != nil {
		v.comp = c
	}
	return g.ok(readCall(g.rng, p), fileSize(g.rng, p), func(o *out, r *rand.Rand) { writeFile(o, r, v, p) })
}

// compForPath returns the component that owns p, if any.
func compForPath(p string) *component {
	for i := range componentBank {
		c := &componentBank[i]
		if strings.HasPrefix(p, "src/"+c.name+"/") || strings.Contains(path.Base(p), c.name) {
			return c
		}
	}
	return nil
}

func (g *Generator) stepList(ph *phase) step {
	r := g.rng
	dir := pick(r, []string{"src/" + ph.comp.name, "src/" + ph.comp.name, "tests", "docs", "config", "scripts", "."})
	entries := g.reg.children(dir)
	if len(entries) == 0 {
		dir, entries = ".", g.reg.children(".")
	}
	what := "`" + dir + "`"
	if dir == "." {
		what = "the repository root"
	}
	if chance(r, 1, 6) {
		var files []string
		for _, f := range g.reg.files {
			if strings.HasSuffix(f, ".py") {
				files = append(files, f)
			}
		}
		c := shellCall("find . -name '*.py' -not -path './.git/*' | sort", between(r, 80, 900))
		g.ok(c, sizeLarge(r), func(o *out, r *rand.Rand) { writeFind(o, r, files) })
		return step{thought: pick(r, []string{
			"I want a complete inventory of the Python files, including what the virtualenv pulls in, before I decide where the " + ph.comp.noun + " logic lives.",
			fmt.Sprintf("Listing every .py file so I can see whether `%s` is defined in more than one place.", pick(r, ph.comp.funcs)),
		}), calls: []*call{c}}
	}
	c := g.ok(listCall(r, dir), sizeSmall(r), func(o *out, r *rand.Rand) { writeListing(o, r, entries) })
	return step{thought: pick(r, []string{
		fmt.Sprintf("Let me list %s to see what lives there before touching anything.", what),
		fmt.Sprintf("I need an overview of %s; listing it.", what),
		fmt.Sprintf("Checking the layout of %s — I want to know whether `%s` has its own module or sits next to the %s code.", what, pick(r, ph.comp.funcs), ph.comp.noun),
		fmt.Sprintf("Before editing, a quick look at what is in %s so I don't create a duplicate file.", what),
	}), calls: []*call{c}}
}

func (g *Generator) stepRead(ph *phase) step {
	r := g.rng
	p := g.compFile(ph)
	switch n := r.IntN(10); {
	case n >= 8 && g.reg.has(ph.comp.test):
		p = ph.comp.test
	case n == 7:
		p = pick(r, g.reg.files)
	}
	fn, k := pick(r, ph.comp.funcs), g.constOf(ph)
	if strings.HasPrefix(p, "tests/") {
		return step{thought: pick(r, []string{
			fmt.Sprintf("Reading `%s` to see what the tests expect from `%s`.", p, fn),
			fmt.Sprintf("Let me check how `%s` exercises `%s`; the fixtures may hide the edge case.", p, fn),
		}), calls: []*call{g.readFile(ph, p)}}
	}
	if !strings.HasPrefix(p, "src/") {
		return step{thought: fmt.Sprintf("Reading `%s`; I want to know whether it mentions `%s` before I rely on the default.", p, k),
			calls: []*call{g.readFile(ph, p)}}
	}
	return step{thought: pick(r, []string{
		fmt.Sprintf("Reading `%s` to see how `%s` is implemented.", p, fn),
		fmt.Sprintf("I want to see where `%s` is used; `%s` is the most likely place.", k, p),
		fmt.Sprintf("`%s` probably calls `%s` — let me read it to confirm the call path.", p, fn),
		fmt.Sprintf("Let me open `%s`. If `%s` is read at import time, changing it in config/settings.yaml won't help until restart.", p, k),
		fmt.Sprintf("Next I'll read `%s` end to end; I need to know what `%s` returns when the input is empty.", p, fn),
	}), calls: []*call{g.readFile(ph, p)}}
}

func (g *Generator) stepReadMissing(ph *phase) step {
	r := g.rng
	fn := pick(r, ph.comp.funcs)
	if len(g.reg.gone) > 0 && chance(r, 1, 3) {
		p := pick(r, g.reg.gone)
		if !g.reg.has(p) {
			c := g.fail(readCall(r, p), journal.StatusFailed, 0, 0, lit("cat: "+p+": No such file or directory"))
			g.pending = append(g.pending, followUp{kind: fuLocate, path: p, fn: fn, note: "gone"})
			return step{thought: fmt.Sprintf("Going back to `%s` to double-check what it says about `%s`.", p, fn), calls: []*call{c}, solo: true}
		}
	}
	var p string
	{
		base := strings.TrimSuffix(path.Base(pick(r, ph.comp.files)), ".py")
		plural := base + "s.py"
		if strings.HasSuffix(base, "s") {
			plural = base + "_utils.py"
		}
		p = pick(r, []string{
			"src/" + ph.comp.name + "/" + plural, "src/" + ph.comp.name + "/utils.py",
			"src/" + ph.comp.name + "/helpers.py", "src/utils/" + ph.comp.name + ".py", "lib/" + ph.comp.name + "/" + base + ".py",
		})
	}
	if g.reg.has(p) {
		p = strings.TrimSuffix(p, ".py") + "_v2.py"
	}
	c := g.fail(readCall(r, p), journal.StatusFailed, 0, 0, lit("cat: "+p+": No such file or directory"))
	g.pending = append(g.pending, followUp{kind: fuLocate, path: p, fn: fn})
	return step{thought: pick(r, []string{
		fmt.Sprintf("`%s` should hold the helper that `%s` uses; let me open it.", p, fn),
		fmt.Sprintf("I think the %s code keeps its shared helpers in `%s`. Reading it.", ph.comp.noun, p),
		fmt.Sprintf("Opening `%s` to check how `%s` is wired up.", p, fn),
	}), calls: []*call{c}, solo: true}
}

func (g *Generator) stepSearch(ph *phase) step {
	r := g.rng
	q := pick(r, append(append([]string{}, ph.comp.funcs...), g.constOf(ph)))
	files := g.reg.under("src/")
	if chance(r, 1, 2) {
		files = append(g.reg.under("src/"+ph.comp.name+"/"), ph.comp.test)
	}
	dir := pick(r, []string{"src/", "src/" + ph.comp.name + "/", "."})
	var c *call
	if chance(r, 1, 3) {
		c = shellCall(fmt.Sprintf("grep -rn %q src/ tests/ config/ | head -n 200", q), between(r, 30, 600))
	} else {
		c = searchCall(r, q, dir)
	}
	v := g.voc(ph)
	size := sizeSmall(r)
	if chance(r, 1, 4) {
		size = sizeMedium(r)
	}
	g.ok(c, size, func(o *out, r *rand.Rand) { writeGrep(o, r, v, q, files) })
	return step{thought: pick(r, []string{
		fmt.Sprintf("Searching for `%s` to find every caller before I change its behaviour.", q),
		fmt.Sprintf("Where else is `%s` referenced? If tests patch it, my change could break them.", q),
		fmt.Sprintf("I'll grep for `%s`; I suspect it is read in two places with different defaults.", q),
	}), calls: []*call{c}}
}

// newFilePath returns a path the agent might create in phase ph.
func (g *Generator) newFilePath(ph *phase) string {
	r := g.rng
	w := pick(r, pyWords)
	switch ph.kind {
	case kindReproduce:
		return "scripts/repro_" + strings.TrimPrefix(ph.bug.test, "test_") + ".py"
	case kindFeature, kindTests, kindDocs:
		if ph.feat != nil {
			for _, f := range ph.feat.files {
				if !g.reg.has(f) && (ph.kind != kindDocs || strings.HasPrefix(f, "docs/")) {
					return f
				}
			}
		}
		if ph.kind == kindDocs {
			return pick(r, []string{"docs/" + w + "s.md", "docs/adr/" + fmt.Sprintf("%04d", between(r, 1, 40)) + "-" + ph.comp.name + "-" + w + ".md", "docs/troubleshooting.md"})
		}
		if ph.kind == kindTests {
			return "tests/test_" + ph.comp.name + "_" + w + ".py"
		}
	case kindRefactor:
		return "src/" + ph.comp.name + "/_" + w + ".py"
	case kindRelease:
		return "notes/release-" + ph.version + ".md"
	}
	return "src/" + ph.comp.name + "/" + w + "_support.py"
}

func (g *Generator) stepWriteCreate(ph *phase) step {
	r := g.rng
	p := g.newFilePath(ph)
	if g.reg.has(p) {
		return g.stepWriteModify(ph)
	}
	v := g.voc(ph)
	content := g.renderContent(between(r, 600, 3200), func(o *out, r *rand.Rand) { writeFile(o, r, v, p) })
	c := g.okText(writeCall(r, p, content), fmt.Sprintf("Created %s (%d bytes)", p, len(content)))
	g.reg.add(p)
	fn := pick(r, ph.comp.funcs)
	return step{thought: pick(r, []string{
		fmt.Sprintf("Creating `%s` with a first version; it wraps `%s` so callers don't need to change.", p, fn),
		fmt.Sprintf("I'll add `%s`. Keeping it small: one entry point plus the helpers `%s` needs.", p, fn),
		fmt.Sprintf("New file `%s`. I'm writing it now and will run the tests right after.", p),
	}), calls: []*call{c}}
}

// changeNote describes an edit to the file at p.
func (g *Generator) changeNote(ph *phase, p string) string {
	r := g.rng
	fn, k := pick(r, ph.comp.funcs), g.constOf(ph)
	switch {
	case p == "CHANGELOG.md":
		return fmt.Sprintf("add an entry for the %s change under the unreleased section", ph.comp.noun)
	case strings.HasSuffix(p, ".md"):
		return pick(r, []string{
			fmt.Sprintf("document `%s` and its default", strings.ToLower(k)),
			fmt.Sprintf("add a usage example for `%s`", fn),
			"fix the outdated install instructions",
			fmt.Sprintf("explain how the %s behaves when the upstream is unreachable", ph.comp.noun),
		})
	}
	return pick(r, []string{
		fmt.Sprintf("guard `%s` against an empty %s before indexing", fn, pick(r, pyWords)),
		fmt.Sprintf("read `%s` from config/settings.yaml instead of hard-coding it", k),
		fmt.Sprintf("log the offending %s at WARNING level in `%s`", pick(r, pyWords), fn),
		fmt.Sprintf("pass the timeout through to `%s` so it can't hang forever", fn),
		fmt.Sprintf("replace the bare `except:` in `%s` with `except %s`", fn, pick(r, ph.comp.classes)),
		fmt.Sprintf("add type hints to `%s` and drop the unused import", fn),
	})
}

func (g *Generator) stepWriteModify(ph *phase) step {
	r := g.rng
	p := g.compFile(ph)
	if ph.kind == kindDocs || ph.kind == kindRelease {
		p = pick(r, []string{"README.md", "CHANGELOG.md", "docs/index.md", "docs/configuration.md"})
	}
	thought := fmt.Sprintf(pick(r, []string{
		"Patching `%s`: %s.", "Editing `%s` to %s.", "Updating `%s`: %s; the rest of the module stays as is.",
	}), p, g.changeNote(ph, p))
	return step{thought: thought, calls: []*call{g.modify(ph, p)}}
}

// modify returns a write_file call that rewrites the existing (or new) file p.
func (g *Generator) modify(ph *phase, p string) *call {
	r := g.rng
	v := g.voc(ph)
	if c := compForPath(p); c != nil {
		v.comp = c
	}
	content := g.renderContent(between(r, 800, 4000), func(o *out, r *rand.Rand) { writeFile(o, r, v, p) })
	g.reg.add(p)
	return g.okText(writeCall(r, p, content), fmt.Sprintf("Wrote %d bytes to %s", len(content), p))
}

func (g *Generator) stepMove(ph *phase) step {
	r := g.rng
	files := g.reg.movable()
	if len(files) == 0 {
		return g.stepWriteCreate(ph)
	}
	src := pick(r, files)
	dst := path.Join(path.Dir(src), "archive", path.Base(src))
	if strings.Contains(src, "/archive/") {
		return g.stepDelete(ph)
	}
	if strings.HasPrefix(src, "src/") {
		dst = path.Join(path.Dir(src), "_"+strings.TrimPrefix(path.Base(src), "_"))
		if dst == src {
			dst = path.Join(path.Dir(src), "legacy", path.Base(src))
		}
	}
	cmd := pick(r, []string{"mv ", "git mv "}) + src + " " + dst
	c := g.okText(shellCall(cmd, between(r, 10, 80)), "(no output)")
	g.reg.remove(src)
	g.reg.add(dst)
	return step{thought: pick(r, []string{
		fmt.Sprintf("`%s` is only kept for reference; moving it to `%s` so it stops showing up in imports and search results.", src, dst),
		fmt.Sprintf("Renaming `%s` to `%s` to match the layout the rest of the package uses.", src, dst),
	}), calls: []*call{c}}
}

// scratchFiles returns the files that are clearly temporary or archived.
func scratchFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, "scripts/repro_") || strings.HasPrefix(f, "notes/") || strings.Contains(f, "/archive/") {
			out = append(out, f)
		}
	}
	return out
}

func (g *Generator) stepDelete(ph *phase) step {
	r := g.rng
	files := g.reg.movable()
	if len(files) == 0 || (ph.kind == kindRelease && chance(r, 1, 2)) {
		c := g.okText(shellCall("rm -rf build/ dist/ *.egg-info .pytest_cache", between(r, 20, 200)), "(no output)")
		return step{thought: "Cleaning out stale build artifacts (build/, dist/, egg-info) so the next build can't pick up an old wheel.", calls: []*call{c}}
	}
	p := pick(r, files)
	if scratch := scratchFiles(files); len(scratch) > 0 && chance(r, 4, 5) {
		p = pick(r, scratch)
	}
	c := g.okText(shellCall(pick(r, []string{"rm ", "git rm -q "})+p, between(r, 10, 60)), "(no output)")
	g.reg.remove(p)
	return step{thought: pick(r, []string{
		fmt.Sprintf("`%s` is no longer needed now; deleting it.", p),
		fmt.Sprintf("Removing `%s` — nothing imports it anymore and it would confuse the next reader.", p),
		fmt.Sprintf("Cleanup: `%s` was scratch work, so it goes.", p),
	}), calls: []*call{c}}
}
