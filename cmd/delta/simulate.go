package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/simulate"
)

func simulateCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "simulate",
		Usage:     "replay a journal iteration by iteration through sync, and report what the memory did",
		ArgsUsage: "FILE",
		Description: `Replays FILE (a Delta journal.jsonl or OpenAI chat messages) one iteration at a time, the
way Delta Engine appends to a journal and calls sync before each LLM call. Nothing is
written to your memory database: the replay uses a temporary one, unless --db is given. It
uses the settings delta memory config prints: the memory.yaml beside the database, or the
file --config names, its llm section included (with a model configured the replay asks it
for summaries; --summarizer extractive keeps the replay offline).

Per iteration it prints the sync output's tokens, the tokens a prompt cache reuses from the
previous call, the raw history's tokens, the folds made (with their trigger), the recalls
made (with their reason) and the sync time in process. At the end: totals, the tokens saved
on the last call and over the whole run, how much of each output's prefix stayed
byte-identical, and the input's cost with memory and with the raw history.

A prompt cache reuses the prefix a call shares with the previous one. With memory, that is
the memory file's unchanged prefix (the newest iterations after it move on every call); with
the raw history, the whole previous history. Costs count input tokens only, at --price-input
per million uncached and --price-cached per million cached. The defaults are OpenAI's list
prices for gpt-5 as published at its launch in August 2025 ($1.25 and $0.125); providers
cache only from about 1,024 tokens on, which the estimate ignores. --json gives per
iteration where the output first differs from the previous one (break: byte offset,
partition, section).

Examples:
   delta memory simulate .delta/run-42/journal.jsonl
   delta memory simulate --budget 8000 --keep-recent 5 --summary journal.jsonl
   delta memory simulate --json transcript.json | jq '.series[] | {iteration, window_tokens}'
   delta memory simulate --summary --price-input 3 --price-cached 0.3 journal.jsonl
   delta memory simulate --json journal.jsonl | jq -r '.series[].break.partition' | sort | uniq -c`,
		Flags: []cli.Flag{
			keepRecentFlag("newest iterations left to the runtime's journal source, as sync's --keep-recent"),
			&cli.StringFlag{Name: "format", Value: journal.FormatAuto, Usage: "input format: auto, delta or openai"},
			&cli.BoolFlag{Name: "summary", Usage: "print only the totals, not a line per iteration"},
			&cli.BoolFlag{Name: "json", Usage: "print the per-iteration series and the totals as JSON"},
			&cli.StringFlag{Name: "price-input", Usage: "US dollars per million uncached input tokens (default 1.25, gpt-5) [$DELTA_MEMORY_PRICE_INPUT]"},
			&cli.StringFlag{Name: "price-cached", Usage: "US dollars per million cached input tokens (default 0.125, gpt-5) [$DELTA_MEMORY_PRICE_CACHED]"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("delta memory simulate FILE (see --help)", "want one journal FILE, got %d arguments", c.NArg())
			}
			keep, err := keepRecent(c, e)
			if err != nil {
				return err
			}
			format := c.String("format")
			if err := oneOf(c.Command.HelpName, "format", format, journal.FormatAuto, journal.FormatDelta, journal.FormatOpenAI); err != nil {
				return err
			}
			prices, err := simulatePrices(c, e)
			if err != nil {
				return err
			}
			src, err := simulate.Load(c.Args().First(), format)
			if err != nil {
				return err
			}
			rep, err := runSimulation(c, e, src, simulate.Options{KeepRecent: keep, Prices: prices}, !c.Bool("json") && !c.Bool("summary"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e, rep)
			}
			rep.WriteText(e.stdout)
			return nil
		},
	})
}

// runSimulation replays src in a temporary workspace, on --db or a
// temporary database, printing a line per iteration when lines is set.
func runSimulation(c *cli.Context, e env, src *simulate.Source, opts simulate.Options, lines bool) (*simulate.Report, error) {
	tmp, err := os.MkdirTemp("", "delta-simulate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cfg, err := engineConfig(c, e)
	if err != nil {
		return nil, err
	}
	if global(c, e, "db") == "" {
		// The replay's database is a temporary one, but its settings are
		// those `delta memory config` prints here: the file beside the
		// default database, unless --config names one.
		if beside := memory.SettingsPath(cfg.DBPath); cfg.ConfigFile == "" && beside != "" && fileExists(beside) {
			cfg.ConfigFile = beside
		}
		cfg.DBPath = filepath.Join(tmp, "memory.db")
	}
	eng, err := memory.Open(c.Context, cfg)
	if err != nil {
		return nil, openError(cfg.DBPath, err)
	}
	defer eng.Close()
	p := newProgress(e, "replaying "+src.Run)
	total := len(src.Chunks)
	opts.Workspace = tmp
	opts.OnIteration = func(it simulate.Iteration, _ memory.SyncResult) {
		if lines {
			fmt.Fprintln(e.stdout, replayLine(it))
			return
		}
		p.count(it.Iteration, total)
	}
	rep, err := simulate.Run(c.Context, eng, src, opts)
	p.done()
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// replayLine is one replayed iteration in text form.
func replayLine(it simulate.Iteration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5d  memory %7s  cached %7s  raw %9s  sync %6.1f ms", it.Iteration, simulate.Thousands(it.WindowTokens),
		simulate.Thousands(it.CachedTokens), simulate.Thousands(it.RawTokens), it.SyncMS)
	for _, f := range it.Folds {
		fmt.Fprintf(&b, "  fold L%d %d-%d (%s)", f.Level, f.First, f.Last, f.Trigger)
	}
	for _, r := range it.Recalls {
		fmt.Fprintf(&b, "  recall %d-%d (%s: %s)", r.First, r.Last, r.Reason, r.Query)
	}
	if n := len(it.Refreshed); n > 0 {
		fmt.Fprintf(&b, "  (%s refreshed)", simulate.Thousands(n))
	}
	return b.String()
}

// simulatePrices reads --price-input and --price-cached (or their env
// vars); either one given makes them custom prices.
func simulatePrices(c *cli.Context, e env) (simulate.Prices, error) {
	p := simulate.DefaultPrices
	for _, f := range []struct {
		flag, env string
		to        *float64
	}{{"price-input", "DELTA_MEMORY_PRICE_INPUT", &p.Input}, {"price-cached", "DELTA_MEMORY_PRICE_CACHED", &p.Cached}} {
		s := flagOrEnv(c, e, f.flag, f.env)
		if s.value == "" {
			continue
		}
		v, err := strconv.ParseFloat(s.value, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return p, s.invalid("a price in US dollars per million tokens, >= 0", "1.25")
		}
		*f.to, p.Model = v, "custom prices"
	}
	return p, nil
}
