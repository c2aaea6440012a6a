package main

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/visualize"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/simulate"
)

func visualizeCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "visualize",
		Usage: "write the run's memory as one self-contained HTML page",
		Description: `Writes one HTML file to open in a browser: a timeline of the run's iterations coloured by
how the context window shows them (L0 in full, L1-L4 folded, pinned, recalled), the block
tree (click a block for its summary, keywords, entities and the iterations it covers), the
window's partitions with their budgets and usage, and the recalls with their reasons.

The page fetches nothing (no network, no CDN scripts or fonts), so it can be mailed or
attached to a bug report. The window is compiled under --budget, as context would: the whole
window, every iteration included (a sync's memory file leaves out the newest, which the
agent runtime shows itself; the demo's page shows that view, and says so).
--json prints {"output", "iterations", "blocks", "bytes"}.

Examples:
   delta memory visualize
   delta memory visualize --run run-42 --budget 16000 --output /tmp/run-42.html
   delta memory visualize --json | jq -r .output | xargs xdg-open`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "memory.html", Usage: "HTML `FILE` to write (atomically)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			out := c.String("output")
			if out == "" {
				return usagef(c.Command.HelpName+" --help", "--output: want a file name, e.g. memory.html")
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			d, size, err := writePage(c, eng, run, out, 0)
			if err != nil {
				return err
			}
			if abs, err := filepath.Abs(out); err == nil {
				out = abs
			}
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"output": out, "iterations": run.Iterations, "blocks": len(d.Blocks), "bytes": size})
			}
			fmt.Fprintf(e.stdout, "wrote %s: run %s, %s iterations, %s blocks, %s\n", out, run.ID, simulate.Thousands(run.Iterations), simulate.Thousands(len(d.Blocks)), pageSize(size))
			return nil
		},
	})
}

// pageSize says n bytes in the largest fitting unit.
// writePage renders the run's HTML view to out, atomically, and returns
// what it showed and the page's size in bytes. With native > 0 the page's
// window is the memory file, without the native newest iterations.
func writePage(c *cli.Context, eng *memory.Engine, run journal.Run, out string, native int) (*visualize.Data, int, error) {
	d, err := visualize.Gather(c.Context, eng, run, native)
	if err != nil {
		return nil, 0, err
	}
	var page bytes.Buffer
	if err := visualize.Render(&page, d); err != nil {
		return nil, 0, fmt.Errorf("render the page: %w", err)
	}
	if err := writeAtomic(out, page.Bytes()); err != nil {
		return nil, 0, withHint(err, "check the --output path")
	}
	return d, page.Len(), nil
}

func pageSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return simulate.Thousands(n) + " bytes"
}
