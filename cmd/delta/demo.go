package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/simulate"
	"github.com/delta-memory/delta-memory/window"
)

func demoCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "demo",
		Usage: "run the whole pipeline on the bundled 400-iteration journal, offline, in a temp directory",
		Description: `Writes the bundled journal (a generated software-engineering agent: 400 iterations, tool
calls, failures, milestones) into a new workspace, then drives it the way Delta Engine would:
one sync per iteration. It prints the folds as they happen, a recall brought back by an error,
the final context window, the tokens saved, and where the HTML view and the database are, so
you can go on with show, context, retrieve or visualize. No network, no model: the extractive
summarizer folds.

Examples:
   delta memory demo
   delta memory demo --budget 4000 --dir /tmp/delta-demo`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "workspace to create (default: a new directory under $TMPDIR)"},
			keepRecentFlag("newest iterations left to the runtime, as sync's --keep-recent"),
		},
		Action: func(c *cli.Context) error {
			keep, err := keepRecent(c, e)
			if err != nil {
				return err
			}
			return runDemo(c, e, keep)
		},
	})
}

// demoBudget is the demo's window budget unless --budget says otherwise:
// small enough that 400 iterations fold at every level.
const demoBudget = 8000

func runDemo(c *cli.Context, e env, keep int) error {
	dir := c.String("dir")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "delta-memory-demo-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := palette{on: e.color()}
	w := e.stdout
	cfg := synth.Bundled
	journalPath := memory.JournalPath(dir, cfg.RunID)
	if err := writeBundled(journalPath, cfg); err != nil {
		return err
	}
	src, err := simulate.Load(journalPath, "delta")
	if err != nil {
		return err
	}
	ecfg, err := engineConfig(c, e)
	if err != nil {
		return err
	}
	if global(c, e, "budget") == "" {
		ecfg.Budget = demoBudget
	}
	ecfg.DBPath = filepath.Join(dir, ".delta", "memory.db")
	eng, err := memory.Open(c.Context, ecfg)
	if err != nil {
		return openError(ecfg.DBPath, err)
	}
	defer eng.Close()

	fmt.Fprintf(w, "%s %s: a generated coding agent, %s iterations, replayed into %s\n", p.bold("1. import"), cfg.RunID, simulate.Thousands(len(src.Chunks)), dir)
	fmt.Fprintf(w, "   one sync per iteration, as Delta Engine calls it before each LLM call; budget %s tokens, the %d newest iterations left to Delta\n\n", simulate.Thousands(ecfg.Budget), keep)
	var lastError demoRecall
	prog := newProgress(e, "syncing")
	rep, err := simulate.Run(c.Context, eng, src, simulate.Options{
		// The replay's journal is the bundled one: the same path, so the
		// workspace ends up as Delta would leave it.
		Workspace: dir, KeepRecent: keep,
		OnIteration: func(it simulate.Iteration, res memory.SyncResult) {
			prog.count(it.Iteration, len(src.Chunks))
			for _, f := range it.Folds {
				if f.Level >= 3 {
					prog.done()
					fmt.Fprintf(w, "   after %3d  %s %s chapter %d-%d\n", it.Iteration, p.level(f.Level), f.Trigger, f.First, f.Last)
				}
			}
			// Show the error recall that reaches furthest back.
			for _, r := range it.Recalls {
				if r.Reason == "error" && res.Context != nil && it.Iteration-r.First >= lastError.at-lastError.r.First {
					lastError = demoRecall{at: it.Iteration, r: r, text: sectionText(res.Context, window.Retrieved, fmt.Sprintf("recall:%d", r.ID))}
				}
			}
		},
	})
	prog.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s %s\n", p.bold("2. folds"), countsLine(rep.Folds.By, "pressure", "interval", "milestone", "cascade"))
	run, err := eng.Journal.Run(c.Context, cfg.RunID)
	if err != nil {
		return err
	}
	blocks, err := eng.Fold.VisibleBlocks(c.Context, run.ID)
	if err != nil {
		return err
	}
	printVisibleBlocks(w, blocks, p)

	fmt.Fprintf(w, "\n%s %s made (%s refreshed)\n", p.bold("3. recall"), countsLine(rep.Recalls.By, "explicit", "implicit", "error"), strconv.Itoa(rep.Refreshed))
	if lastError.at > 0 {
		fmt.Fprintf(w, "   at iteration %d an action failed on %q; sync brought back iterations %d-%d, folded long before:\n",
			lastError.at, lastError.r.Query, lastError.r.First, lastError.r.Last)
		for _, l := range strings.Split(clipLines(lastError.text, 14), "\n") {
			fmt.Fprintf(w, "   │ %s\n", oneLine(l, 110))
		}
	} else {
		fmt.Fprintln(w, "   no action failed on something the run had touched before")
	}

	res, err := eng.Sync(c.Context, memory.SyncOptions{Journal: journalPath, KeepRecent: keep})
	if err != nil {
		return err
	}
	out := filepath.Join(dir, ".delta", "context_artifacts", "memory.md")
	if err := writeAtomic(out, []byte(res.Markdown)); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s: what the agent gets besides its %d newest iterations, in %s\n", p.bold("4. the memory file"), keep, out)
	printPartitions(w, res.Context, p)

	fmt.Fprintf(w, "\n%s\n", p.bold("5. savings"))
	var sum strings.Builder
	rep.WriteText(&sum)
	for _, l := range strings.Split(strings.TrimRight(sum.String(), "\n"), "\n") {
		fmt.Fprintf(w, "   %s\n", l)
	}

	page := filepath.Join(dir, "memory.html")
	if _, _, err := writePage(c, eng, run, page, keep); err != nil {
		return err
	}
	keyword, err := demoKeyword(c.Context, eng, run, blocks)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s file://%s\n", p.bold("6. the HTML view:"), page)
	fmt.Fprintf(w, "   the timeline, the block tree (click a block for its summary), the partitions and the recalls; then look around:\n")
	fmt.Fprintf(w, "   delta memory show --db %s\n", ecfg.DBPath)
	if keyword != "" {
		fmt.Fprintf(w, "   delta memory retrieve --db %s --keyword %s\n", ecfg.DBPath, shellWord(keyword))
	}
	fmt.Fprintf(w, "   delta memory context --db %s --budget 4000\n", ecfg.DBPath)
	return nil
}

// demoRecall is the error-driven recall the demo shows.
type demoRecall struct {
	at   int
	r    simulate.Recall
	text string
}

// writeBundled writes the bundled journal to path.
func writeBundled(path string, cfg synth.Config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := synth.WriteJSONL(f, cfg); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sectionText is the section of a partition that came from source.
func sectionText(cx *window.Context, partition, source string) string {
	for _, part := range cx.Partitions {
		if part.Name != partition {
			continue
		}
		for _, s := range part.Sections {
			if s.Source == source {
				return s.Name + "\n" + s.Content
			}
		}
	}
	return "(not shown: the Retrieved budget was full)"
}

// clipLines keeps the first n lines of s, saying how many were left out.
func clipLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + "\n… " + simulate.Thousands(len(lines)-n) + " more lines"
}

// demoKeyword picks a keyword for the demo's retrieve example from the
// run itself: the first entity, else keyword, of the shown blocks, oldest
// first, that a recall finds in folded history. "" when none does.
func demoKeyword(ctx context.Context, eng *memory.Engine, run journal.Run, blocks []*fold.Block) (string, error) {
	for _, b := range blocks {
		for _, k := range append(slices.Clone(b.Entities), b.Keywords...) {
			hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{k}, Limit: 1, DryRun: true})
			if err != nil {
				return "", err
			}
			if len(hits) > 0 && !hits[0].Visible {
				return k, nil
			}
		}
	}
	return "", nil
}

// shellWord quotes s for a shell command line when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
