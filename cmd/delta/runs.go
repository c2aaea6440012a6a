package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/simulate"
)

func runsCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "runs",
		Usage: "list the runs in the memory database, most recent first",
		Description: `Examples:
   delta memory runs
   delta memory runs --json | jq '.runs[0].id'`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the runs as JSON"}},
		Action: func(c *cli.Context) error {
			eng, err := openEngine(c, e, true)
			if err != nil {
				return err
			}
			defer eng.Close()
			runs, err := eng.Journal.Runs(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out := make([]runJSON, len(runs))
				for i, r := range runs {
					out[i] = toRunJSON(r)
				}
				return writeJSON(e, map[string]any{"runs": out})
			}
			if len(runs) == 0 {
				fmt.Fprintln(e.stdout, "no runs yet; import a journal with: delta memory import FILE")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTATUS\tFORMAT\tITERATIONS\tEVENTS\tTASK")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Format, simulate.Thousands(r.Iterations), simulate.Thousands(int(r.Events)), oneLine(r.Task, 60))
			}
			return tw.Flush()
		},
	})
}
