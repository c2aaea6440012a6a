package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/simulate"
)

func foldCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "fold",
		Usage: "fold a range of iterations into one block by hand",
		Description: `Folds iterations A to B into one block at --level (2: summary, 3: chapter, 4: phase),
absorbing the blocks inside the range. The block records trigger "manual". Unfold it with
delta memory unfold BLOCK_ID.

A range that cuts a folded block is widened to the block's boundaries, and a line on stderr
says so; with --exact it is refused instead, naming the block.

Examples:
   delta memory fold --iterations 20-50
   delta memory fold --iterations 1-120 --level 3 --json
   delta memory fold --iterations 35-60 --exact`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "iterations", Aliases: []string{"i"}, Usage: "range A-B to fold (required)"},
			&cli.IntFlag{Name: "level", Value: fold.L2, Usage: "2, 3 or 4"},
			&cli.BoolFlag{Name: "exact", Usage: "refuse a range that cuts a folded block instead of widening it"},
			&cli.BoolFlag{Name: "json", Usage: "print the new block as JSON"},
		},
		Action: func(c *cli.Context) error {
			if !c.IsSet("iterations") {
				return usagef("delta memory fold --iterations A-B", "say which --iterations to fold")
			}
			first, last, err := parseRange(c.String("iterations"))
			if err != nil {
				return err
			}
			level := c.Int("level")
			if level < fold.L2 || level > fold.L4 {
				return usagef("delta memory fold --help", "--level %d: want 2, 3 or 4", level)
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
			b, err := eng.Folder.Fold(c.Context, run, fold.FoldOptions{First: first, Last: last, Level: level, Trigger: fold.TriggerManual, Strict: true, Exact: c.Bool("exact")})
			if err != nil {
				return err
			}
			if b.First != first || b.Last != last {
				fmt.Fprintf(e.stderr, "Note: iterations %d-%d cut folded blocks; widened to %d-%d, their boundaries (--exact refuses instead)\n", first, last, b.First, b.Last)
			}
			if c.Bool("json") {
				return writeJSON(e, toBlockJSON(b))
			}
			fmt.Fprintf(e.stdout, "folded iterations %d-%d into %s (L%d, %s tokens): %s\n", b.First, b.Last, b.ID, b.Level, simulate.Thousands(b.Tokens), b.Title)
			return nil
		},
	})
}

func unfoldCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "unfold",
		Usage:     "show a folded block's children or iterations again",
		ArgsUsage: "BLOCK_ID",
		Description: `The block stops being shown; the blocks it absorbed, or its iterations in full, show again.
The block itself is kept, and the unfold is logged. Find block ids with delta memory show --json.

Examples:
   delta memory unfold L3-1-48
   delta memory unfold --run run-42 L2-51-60`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the unfolded block as JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("delta memory unfold BLOCK_ID (see delta memory show --json for ids)", "want exactly one BLOCK_ID, got %d arguments", c.NArg())
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			b, err := eng.Folder.Unfold(c.Context, run, c.Args().First())
			if errors.Is(err, fold.ErrBlockNotFound) {
				return withHint(err, "delta memory show lists the blocks the window shows, with their ids")
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e, toBlockJSON(b))
			}
			fmt.Fprintf(e.stdout, "unfolded %s: iterations %d-%d show again\n", b.ID, b.First, b.Last)
			return nil
		},
	})
}

// parseRange reads "A-B" (or a single "A").
func parseRange(s string) (int, int, error) {
	bad := usagef("write the range as A-B, e.g. --iterations 20-50", "--iterations %q: not a range", s)
	a, b, found := strings.Cut(strings.TrimSpace(s), "-")
	first, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return 0, 0, bad
	}
	last := first
	if found {
		if last, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
			return 0, 0, bad
		}
	}
	if last < first {
		return 0, 0, usagef("write the smaller number first", "--iterations %q: the range ends before it starts", s)
	}
	return first, last, nil
}

// foldCounts summarises fold events by trigger: "3 (interval 2, milestone 1)".
func foldCounts(events []fold.FoldEvent) string {
	by := map[string]int{}
	for _, ev := range events {
		by[ev.Trigger]++
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + simulate.Thousands(by[k])
	}
	return fmt.Sprintf("%s blocks (%s)", simulate.Thousands(len(events)), strings.Join(parts, ", "))
}
