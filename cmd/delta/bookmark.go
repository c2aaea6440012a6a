package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

func bookmarkCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "bookmark",
		Usage: "keep an iteration's text in the window, with a note",
		Description: `A bookmarked iteration's own text stays in the window (in Dynamic once it is folded) for as
long as the bookmark stands, unless the budget cannot hold it; show says when that happens.

Examples:
   delta memory bookmark --iteration 42 --note "the schema we agreed on"
   delta memory bookmark --iteration 42 "the schema we agreed on"   (a note may follow as text)
   delta memory bookmark --iteration 42 --remove
   delta memory bookmark --list --json`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "iteration", Aliases: []string{"i"}, Usage: "iteration to bookmark"},
			&cli.StringFlag{Name: "note", Usage: "why it matters"},
			&cli.BoolFlag{Name: "remove", Usage: "remove the bookmark on --iteration"},
			&cli.BoolFlag{Name: "list", Usage: "list the bookmarks"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			list, remove, has := c.Bool("list"), c.Bool("remove"), c.IsSet("iteration")
			switch {
			case list && (remove || has):
				return usagef("delta memory bookmark --help", "--list goes alone")
			case !list && !has:
				return usagef("delta memory bookmark --iteration N [--note TEXT], or --list", "say which --iteration to bookmark, or --list")
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			n := c.Int("iteration")
			switch {
			case list:
				marks, err := eng.Fold.Bookmarks(c.Context, run.ID)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(e, map[string]any{"bookmarks": marks})
				}
				if len(marks) == 0 {
					fmt.Fprintln(e.stdout, "no bookmarks")
					return nil
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ITERATION\tNOTE")
				for _, m := range marks {
					fmt.Fprintf(tw, "%d\t%s\n", m.Iteration, m.Note)
				}
				return tw.Flush()
			case remove:
				removed, err := eng.Fold.RemoveBookmark(c.Context, run, n)
				if err != nil {
					return err
				}
				if !removed {
					return withHint(fmt.Errorf("iteration %d of run %s has no bookmark", n, run.ID), "list them with: delta memory bookmark --list")
				}
				fmt.Fprintf(e.stdout, "removed the bookmark on iteration %d\n", n)
				return nil
			default:
				note := c.String("note")
				if note == "" {
					note = strings.Join(c.Args().Slice(), " ")
				}
				if err := eng.Fold.AddBookmark(c.Context, run, n, note); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "bookmarked iteration %d of run %s\n", n, run.ID)
				return nil
			}
		},
	})
}

func milestoneCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "milestone",
		Usage:     "declare a phase done: everything since the last milestone becomes one chapter",
		ArgsUsage: "TITLE",
		Description: `The agent can declare milestones in its thoughts ("Phase 2 completed: parser fixed.");
this command declares one from outside. The chapter is an L3 block named TITLE.

Examples:
   delta memory milestone "parser fixed"
   delta memory milestone --run run-42 "release 1.2 shipped"`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the folds as JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 || c.Args().First() == "" {
				return usagef(`delta memory milestone "TITLE"`, "want one TITLE (quote it if it has spaces)")
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			defer warnLLM(e, eng)
			if _, err := eng.Scheduler.Step(c.Context, run.ID); err != nil {
				return err
			}
			step, err := eng.Milestone(c.Context, run, c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e, step)
			}
			for _, f := range step.Folds {
				if f.Trigger == "milestone" {
					fmt.Fprintf(e.stdout, "chapter %s: iterations %d-%d\n", f.Block, f.First, f.Last)
				}
			}
			return nil
		},
	})
}
