package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/simulate"
)

func retrieveCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "retrieve",
		Usage: "recall folded history by keyword into the Retrieved partition",
		Description: `Searches the run's iterations and blocks (BM25; exact paths and identifiers rank first),
prints what it found, and records each hit as a recall: the next "delta memory context"
shows it in the Retrieved partition for the next iterations (recall ttl, default 8).
Everything is ranked, what the window already shows in full too: such hits say
"visible": true in --json, and the window never shows them twice. A hit amid other hits
(within recall nearby iterations, default 2) ranks higher: both rankings are fused, unless
a keyword is an identifier (a path, a file name, a code), whose exact matches come first.
Keywords that name a time ("two months ago", "last weekend", "in August 2023") search the
iterations that started then a second time, fused with the first (recall dates). The best five hits
(recall focus) come back with the iteration before and after them (recall context) unless
those are much longer; a block hit brings back the iterations it covers, in full while
they fit, else one line each.

Without --limit the recall is a question to memory: it takes, best first, as many hits as
the window has room for, however many that is (up to 1,600 short turns). Its words are also looked up as
the concepts they name (WordNet), so that "sports" finds a turn about tennis (recall
concepts, the weight of that search, default 0.25). A question that asks for a list
("what books has she read?", "how many weddings?") keeps only its best hit in focus, so
that the room holds more of the items. The best hit, when longer than the room, comes as
the turns it matched, or its lines; one after it takes at most half the room. Past the
focus, each hit comes
with the other half of its exchange (the question it answers, the answer to its question)
and takes at most an eighth of the room,
and a second search on the rare words the best hits share (recall second_hop) is fused
with the first. The next context is focused on it: Retrieved may take all of the budget
but Static, Dynamic and the current step, and the summaries and Working keep the rest.

Examples:
   delta memory retrieve --keyword "metrics server port"
   delta memory retrieve --keyword data/cache_3d5a4.json --keyword RETRY_BUDGET --limit 3
   delta memory retrieve --json --dry-run --keyword timeout`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "keyword", Aliases: []string{"k"}, Usage: "word, phrase, path or identifier to look for (repeatable)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "most hits to recall (default: as many as the window has room for, or the recall limit if set)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "search and print, but record no recall"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			keys := c.StringSlice("keyword")
			keys = append(keys, c.Args().Slice()...)
			if strings.TrimSpace(strings.Join(keys, "")) == "" {
				return usagef("delta memory retrieve --keyword WORD (see --help)", "%v: no --keyword to look for", errNoArgs)
			}
			if c.Int("limit") < 0 {
				return usagef("pass a positive number, e.g. --limit 5", "--limit %d: want a positive number", c.Int("limit"))
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			q := recall.Query{Keywords: keys, Limit: c.Int("limit"), DryRun: c.Bool("dry-run")}
			if most := eng.Recall.Config().MaxHits; q.Limit > most {
				fmt.Fprintf(e.stderr, "Warning: --limit %d: a recall takes at most recall.max_hits (%d) hits; set max_hits in the settings file for more, or leave --limit out to take as many as the window has room for\n", q.Limit, most)
			}
			hits, err := eng.Retrieve(c.Context, run, q)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"query": q.Text(), "hits": nonNil(hits)})
			}
			printRetrieved(e, q, hits, fillsBefore(eng, q, run))
			return nil
		},
	})
}

// fillsBefore is, for a recall that takes as many hits as the window has
// room for, the run's newest iteration: the step that asks, which shows
// in full and is never its own hit. It is 0 for a recall with a limit.
func fillsBefore(eng *memory.Engine, q recall.Query, run journal.Run) int {
	if q.Limit > 0 || eng.Recall.Config().Limit > 0 {
		return 0
	}
	return run.Iterations
}

// printRetrieved prints the hits of a recall; current is the iteration
// a fill leaves out (fillsBefore), if any.
func printRetrieved(e env, q recall.Query, hits []memory.Retrieved, current int) {
	if len(hits) == 0 {
		where := "nothing in the run matches"
		if current > 0 {
			// The newest iteration is the step asking: say so, or a
			// user who sees the words there thinks the index lost them.
			where = fmt.Sprintf("nothing before the current iteration (%d, which shows in full and is never its own hit) matches", current)
		}
		fmt.Fprintf(e.stdout, "%s %q: try other words, a path or an identifier as the journal spells it\n", where, q.Text())
		return
	}
	for i, h := range hits {
		what := fmt.Sprintf("iteration %d", h.Iterations[0])
		if h.Iterations[1] != h.Iterations[0] {
			what = fmt.Sprintf("iterations %d-%d", h.Iterations[0], h.Iterations[1])
		}
		if h.Block != nil {
			what += " (block " + *h.Block + ")"
		}
		// Fused scores are often small (reciprocal ranks), so they are
		// printed to three significant digits, beside the rank.
		fmt.Fprintf(e.stdout, "── #%d · %s · score %.3g ──\n%s\n\n", i+1, what, h.Score, strings.TrimRight(h.Content, "\n"))
	}
	if q.DryRun {
		fmt.Fprintf(e.stdout, "dry run: no recall recorded\n")
		return
	}
	fmt.Fprintf(e.stdout, "recorded %s recall(s); the context shows them until iteration %d\n", simulate.Thousands(len(hits)), hits[0].Expires)
}

func reindexCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "reindex",
		Usage: "rebuild the recall index from the database",
		Description: `Deletes the recall index (memory.bleve beside the database) and indexes every run again.
The database is the truth, so nothing is lost; a missing or unreadable index is also
rebuilt on its own, with a warning, the next time recall needs it.

Examples:
   delta memory reindex
   delta memory reindex --db /tmp/m.db --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(c *cli.Context) error {
			eng, err := openEngine(c, e, true)
			if err != nil {
				return err
			}
			defer eng.Close()
			p := newProgress(e, "indexing")
			err = eng.Reindex(c.Context, p.count)
			p.done()
			if err != nil {
				return err
			}
			runs, err := eng.Journal.Runs(c.Context)
			if err != nil {
				return err
			}
			iters := 0
			for _, r := range runs {
				iters += r.Iterations
			}
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"index": eng.Recall.IndexPath(), "runs": len(runs), "iterations": iters})
			}
			fmt.Fprintf(e.stdout, "rebuilt %s: %s runs, %s iterations\n", eng.Recall.IndexPath(), simulate.Thousands(len(runs)), simulate.Thousands(iters))
			return nil
		},
	})
}
