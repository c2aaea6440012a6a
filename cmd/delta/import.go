package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/simulate"
)

func importCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "import",
		Usage:     "import Delta journal.jsonl or OpenAI chat files into the memory database",
		ArgsUsage: "FILE...",
		Description: `Imports each FILE in one transaction: a file with a bad line is not imported at all,
and the error names the line. Importing a file again adds only the events appended since
(events are keyed by their seq), so it is safe to run on every agent step. A last line
without a newline is an append in progress and is left for the next import.

Formats (detected from the content unless --format is given):
   delta    Delta Engine's .delta/<run_id>/journal.jsonl; the run id comes from RUN_START,
            else from the directory name
   openai   chat messages: a JSON array, an object with "messages", or one message per line;
            the run id is the file name without its extension

With an LLM summarizer (--summarizer llm, or auto with OPENAI_API_KEY or OPENAI_BASE_URL set),
a block the model fails to summarize is made by the extractive summarizer: the import still
succeeds, and one warning on stderr says why.

Examples:
   delta memory import .delta/run-42/journal.jsonl
   OPENAI_BASE_URL=http://localhost:11434/v1 delta memory import --summarizer llm --model llama3.2 journal.jsonl
   delta memory import --db /tmp/m.db --format openai --run chat-1 transcript.json
   delta memory import --json a.jsonl b.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: journal.FormatAuto, Usage: "input format: auto, delta or openai"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *cli.Context) (err error) {
			if c.NArg() == 0 {
				return usagef("delta memory import FILE... (see --help)", "%v: no FILE to import", errNoArgs)
			}
			format := c.String("format")
			if err := oneOf(c.Command.HelpName, "format", format, journal.FormatAuto, journal.FormatDelta, journal.FormatOpenAI); err != nil {
				return err
			}
			eng, err := openEngine(c, e, false)
			if err != nil {
				return err
			}
			defer func() { release(c.Context, eng, err) }()
			// Warn once, after every file: the blocks were made anyway.
			defer warnLLM(e, eng)
			var results []importJSON
			for _, path := range c.Args().Slice() {
				p := newProgress(e, "importing "+path)
				fp := newProgress(e, "folding "+path)
				eng.Scheduler.OnProgress = fp.count
				ip := newProgress(e, "indexing "+path)
				eng.Recall.OnProgress = ip.count
				res, step, err := eng.Import(c.Context, path, journal.ImportOptions{
					RunID: global(c, e, "run"), Format: format, Progress: p.update,
				})
				p.done()
				fp.done()
				ip.done()
				if err != nil {
					if c.Context.Err() != nil {
						return importInterrupted(eng, path, res, results, err)
					}
					return fmt.Errorf("import %s: %w", path, err)
				}
				results = append(results, importJSON{ImportResult: res, Folds: step.Fold.Folds, Usage: step.Fold.Usage, Recalls: nonNil(step.Recall.Recalls)})
				if !c.Bool("json") {
					printImport(e, res, step)
				}
			}
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"imports": results})
			}
			return nil
		},
	})
}

// importJSON is one file's entry in `import --json`.
type importJSON struct {
	journal.ImportResult
	Folds   []fold.FoldEvent `json:"folds"`
	Usage   float64          `json:"usage"`
	Recalls []recall.Recall  `json:"recalls"`
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func printImport(e env, r journal.ImportResult, st memory.Step) {
	step := st.Fold
	fmt.Fprintf(e.stdout, "%s → run %s (%s): %s new events, %s already stored; %s iterations (+%s), last seq %d\n",
		r.File, r.Run, r.Format, simulate.Thousands(r.Added), simulate.Thousands(r.Skipped+r.Seeked), simulate.Thousands(r.Iterations), simulate.Thousands(r.NewIterations), r.LastSeq)
	if len(step.Folds) > 0 {
		fmt.Fprintf(e.stdout, "  folded: %s; window at %.0f%% of the budget\n", foldCounts(step.Folds), 100*step.Usage)
	}
	for _, rc := range st.Recall.Recalls {
		fmt.Fprintf(e.stdout, "  recalled iterations %d-%d (%s: %s) until iteration %d\n", rc.First, rc.Last, rc.Reason, rc.Query, rc.Expires)
	}
	if r.PartialLine {
		fmt.Fprintf(e.stdout, "  the last line has no newline yet; it will be imported next time\n")
	}
}

// writeJSON prints v as indented JSON on stdout.
func writeJSON(e env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// importInterrupted says what an interrupted import kept: the files
// imported before the one cut short, and of that one, its events if their
// transaction committed before the interrupt came (then only folding or
// indexing was cut short, and the next import or sync resumes it). It
// asks the database, not the import's result, which counts events before
// they commit.
func importInterrupted(eng *memory.Engine, path string, res journal.ImportResult, done []importJSON, err error) error {
	var before string
	if len(done) > 0 {
		names := make([]string, len(done))
		for i, d := range done {
			names[i] = d.File
		}
		before = "; imported before it: " + strings.Join(names, ", ")
	}
	stored := false
	if res.Run != "" && res.Added > 0 {
		run, rerr := eng.Journal.Run(context.Background(), res.Run)
		stored = rerr == nil && run.LastSeq >= res.LastSeq
	}
	if stored {
		return &interrupted{err: err, kept: fmt.Sprintf("%s: its %s new events were stored, and bringing the run up to date (folds, recall index) was cut short; the next import or sync finishes it%s",
			path, simulate.Thousands(res.Added), before)}
	}
	return &interrupted{err: err, kept: fmt.Sprintf("nothing of %s was kept%s", path, before)}
}
