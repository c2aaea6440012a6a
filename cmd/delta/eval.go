package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/eval"
	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/longmemeval"
	"github.com/delta-memory/delta-memory/simulate"
)

func evalCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "measure what the context holds of a benchmark's evidence, against two baselines",
		Description: `Imports each conversation of a memory benchmark as a run, folds it under --budget tokens
(default 4000), asks each question as the agent's next step, and measures how much of the
question's evidence is in the context the engine builds; the same for two baselines on the
same budget: recent (the newest turns that fit) and bm25-turns (plain BM25 top turns that fit).
trajectories does the same for agent runs: whether a step that comes back to what an earlier
step's tool call named finds that step's output in the window.
Nothing is written to the memory database: the runs live in a temporary directory. The
engine runs on its default settings and the extractive summarizer, so that figures compare
across machines; --config and --summarizer change them (a memory.yaml beside the database
is not read).

Examples:
   delta memory eval locomo locomo10.json
   delta memory eval longmemeval --limit 10 longmemeval_s_cleaned.json
   delta memory eval trajectories --budget 2000,4000,8000 dev.json`,
		Flags:        globalFlags(),
		OnUsageError: onUsageError,
		Action:       unknownCommand,
		Subcommands:  []*cli.Command{evalLoCoMoCommand(e), evalLongMemEvalCommand(e), evalTrajectoriesCommand(e)},
	}
}

// evalFlags are the flags every eval takes; cv says what --cv does.
func evalFlags(what, cv string) []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "evaluate the first N " + what + " only (default: all)"},
		&cli.StringFlag{Name: "keep", Usage: "keep the eval's databases in DIR, new or empty, for inspection (default: a temporary directory, removed)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		&cli.BoolFlag{Name: "cv", Usage: cv},
	}
}

// questionsFlag writes each question's result, for reading misses. Each
// command gets a flag of its own: urfave/cli writes to a flag as it
// applies it, and apps run at once in this package's tests.
func questionsFlag() cli.Flag {
	return &cli.StringFlag{Name: "questions", Usage: "also write one JSON line per question to `FILE`: its evidence turns, which of them each system's context held, its size (and, for longmemeval, each system's first five sessions)"}
}

// contextsFlag puts each system's context in --questions' lines; one per
// command, as questionsFlag.
func contextsFlag() cli.Flag {
	return &cli.BoolFlag{Name: "contexts", Usage: "with --questions, also put in each line the context each system built (\"contexts\": its text by system), to read a miss where it happened"}
}

// cvRecall is what --cv does for the question evals.
var cvRecall = fmt.Sprintf("also cross-validate the recall settings: each held-out part is evaluated with the setting that did best on the others (%d settings, each evaluated once more)", len(eval.Candidates))

func evalLoCoMoCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "locomo",
		Usage:     "evidence recall on LoCoMo (locomo10.json, or any subset of it)",
		ArgsUsage: "FILE",
		Description: `Each conversation becomes a run, one iteration per turn ("[D1:3] Caroline (1:56 pm on
8 May, 2023): …"). For every question with evidence, on a fresh copy of the folded run:
the question is appended as a user message, the engine updates (scheduler, recall triggers),
the agent's recall_memory tool is called with the question, and the context is built. Evidence
recall is the share of the question's evidence turns whose whole line is in that context.
Reported per category (multi-hop, temporal, open-domain, single-hop, adversarial) and overall,
with the mean context tokens, beside the recent and bm25-turns baselines. Malformed evidence
ids ("D8:6; D9:17", "D:11:26") are parsed where possible and counted.

With --cv, each conversation is also evaluated with every recall setting eval tries
(recall.focus, recall.second_hop, recall.nearby, recall.concepts), and reported with the one that did best on the other
conversations: held-out figures, beside the figures of the default settings on the whole file.

Examples:
   delta memory eval locomo locomo10.json
   delta memory eval locomo --cv --budget 2000 locomo10.json
   delta memory eval locomo --budget 8000 --limit 2 --json locomo10.json > locomo.json
   delta memory eval locomo --questions misses.jsonl locomo10.json   # one line per question
   delta memory eval locomo --budget 2000 --questions misses.jsonl --contexts locomo10.json
      # each line also holds the context each system built`,
		Flags: append(evalFlags("conversations", cvRecall), questionsFlag(), contextsFlag()),
		Action: evalAction(e, evalSpec{name: "locomo", unit: "questions", run: func(c *cli.Context, path string, opts eval.Options) (evalReport, error) {
			convs, err := locomo.Load(path)
			if err != nil {
				return nil, withHint(err, "pass LoCoMo's locomo10.json, or a JSON list of some of its samples")
			}
			rep, err := eval.LoCoMo(c.Context, convs, opts)
			if rep != nil {
				rep.Path = path
			}
			return rep, err
		}}),
	})
}

func evalLongMemEvalCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:      "longmemeval",
		Usage:     "retrieval metrics and evidence recall on LongMemEval",
		ArgsUsage: "PATH",
		Description: `PATH is a JSON file holding a list of questions (longmemeval_s_cleaned.json) or a
directory of one-question files. Each question's haystack becomes a run, sessions in date
order, one iteration per turn ("[S3:5] user (2023/05/20 (Sat) 02:21): …"), and the question
is asked as for locomo. Reported by question type and overall, abstention questions (_abs)
left out as in the official scripts:
   session recall_all@5, recall_all@10, ndcg_any@5   from the engine's retrieve with the question
   turn recall_any@10                                 the same ranking, by turn
   evidence recall                                    share of evidence turns in the context
beside the recent and bm25-turns baselines and the paper's Table 2 (a dense retriever on
LongMemEval_M, a haystack ten times larger).

With --cv, the questions are split in three parts (question i in part i mod 3), and each
part is reported with the recall setting that did best on the other two.

Examples:
   delta memory eval longmemeval longmemeval_s_cleaned.json
   delta memory eval longmemeval --cv longmemeval_s_cleaned.json
   delta memory eval longmemeval --limit 20 --json questions/ > lme.json`,
		Flags: append(evalFlags("questions", cvRecall), questionsFlag(), contextsFlag()),
		Action: evalAction(e, evalSpec{name: "longmemeval", unit: "questions", run: func(c *cli.Context, path string, opts eval.Options) (evalReport, error) {
			qs, err := longmemeval.Load(path)
			if err != nil {
				return nil, withHint(err, "pass longmemeval_s_cleaned.json, or a directory of one-question .json files")
			}
			rep, err := eval.LongMemEval(c.Context, qs, opts)
			if rep != nil {
				rep.Path = path
			}
			return rep, err
		}}),
	})
}

// evalReport is what an eval returns: printed as JSON, or as text.
type evalReport interface{ WriteText(w io.Writer) error }

// evalSpec says how an eval command runs.
type evalSpec struct {
	name string
	// several says --budget takes several budgets, repeated or a list.
	several bool
	// unit is what the eval's progress counts.
	unit string
	run  func(c *cli.Context, path string, opts eval.Options) (evalReport, error)
}

// evalAction runs one eval: it reads the argument and the flags, runs the
// benchmark with progress (a status line on a terminal, a line a minute
// otherwise), and prints the report.
func evalAction(e env, spec evalSpec) cli.ActionFunc {
	return func(c *cli.Context) error {
		path, opts, err := evalSetup(c, e, "delta memory eval "+spec.name+" "+c.Command.ArgsUsage, spec.several)
		if err != nil {
			return err
		}
		p := newProgress(e, spec.name)
		opts.Progress = p.evalProgress(spec.unit)
		closeQuestions, err := questionsOutput(c, &opts)
		if err != nil {
			return err
		}
		rep, err := spec.run(c, path, opts)
		p.done()
		if cerr := closeQuestions(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if c.Bool("json") {
			return writeJSON(e, rep)
		}
		return rep.WriteText(e.stdout)
	}
}

// questionsOutput opens --questions' file, if given, and sets
// opts.Question (opts.Probe for trajectories) to write each question (each
// probe) to it as a JSON line. The function
// it returns closes the file, reporting the first write error.
func questionsOutput(c *cli.Context, opts *eval.Options) (func() error, error) {
	path := c.String("questions")
	if path == "" {
		if c.Bool("contexts") {
			return nil, usagef("add --questions FILE, e.g. --questions misses.jsonl --contexts", "--contexts: the contexts go in --questions' lines, and no --questions file was given")
		}
		return func() error { return nil }, nil
	}
	opts.Contexts = c.Bool("contexts")
	f, err := os.Create(path)
	if err != nil {
		return nil, withHint(err, "--questions: pass a file in a writable directory")
	}
	enc := json.NewEncoder(f)
	var werr error
	opts.Question = func(q eval.QuestionResult) {
		if werr == nil {
			werr = enc.Encode(q)
		}
	}
	opts.Probe = func(p eval.ProbeResult) {
		if werr == nil {
			werr = enc.Encode(p)
		}
	}
	return func() error {
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return fmt.Errorf("--questions %s: %w", path, werr)
		}
		return nil
	}, nil
}

// evalSetup reads the argument and the flags every eval shares; several
// says --budget may name several budgets (opts.Budget is then the first).
// The summarizer is extractive unless --summarizer (or its variable) asks
// for another: an eval folds every conversation, and an API key in the
// environment should not make that cost money unasked.
func evalSetup(c *cli.Context, e env, usage string, several bool) (string, eval.Options, error) {
	var opts eval.Options
	if c.NArg() != 1 {
		return "", opts, usagef(usage+" (see --help)", "%v: want one FILE, got %d arguments", errNoArgs, c.NArg())
	}
	if c.Int("limit") < 0 {
		return "", opts, usagef("pass a positive number, e.g. --limit 2", "--limit %d: want a positive number", c.Int("limit"))
	}
	opts.Limit, opts.Dir, opts.CrossValidate = c.Int("limit"), c.String("keep"), c.Bool("cv")
	budgets, err := evalBudgets(c, e, several)
	if err != nil {
		return "", opts, err
	}
	opts.Budget = budgets[0]
	lc, err := llmConfig(c, e)
	if err != nil {
		return "", opts, err
	}
	if lc.Summarizer == "" {
		lc.Summarizer = memory.SummarizerExtractive
	}
	opts.Engine = memory.Config{ConfigFile: global(c, e, "config"), LLM: lc}
	path := c.Args().First()
	if several && eval.IsSynth(path) {
		return path, opts, nil // generated runs (eval trajectories synth:N)
	}
	if _, err := os.Stat(path); err != nil {
		return "", opts, withHint(err, "check the path")
	}
	return path, opts, nil
}

// evalProgress makes an eval.Options.Progress callback: how many of the
// eval's units (questions, steps) are done. On a terminal it redraws a
// status line; otherwise (a log, a CI job) it prints a plain line once a
// minute from the first minute on, so that a long eval is not taken for
// a hung one, and a short one prints nothing.
func (p *progress) evalProgress(unit string) func(eval.Progress) {
	clock := p.clock
	if clock == nil {
		clock = time.Now
	}
	start := clock()
	return func(pr eval.Progress) {
		if !p.on {
			if now := clock(); now.Sub(start) >= plainEvery && now.Sub(p.last) >= plainEvery {
				p.last = now
				fmt.Fprintf(p.w, "%s: %s of %s %s done, %s\n", p.label, simulate.Thousands(pr.Done), simulate.Thousands(pr.Total), unit, now.Sub(start).Round(time.Second))
			}
			return
		}
		now := time.Now()
		if now.Sub(p.last) < 100*time.Millisecond && pr.Done < pr.Total {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "\r\033[K%s: %s of %s %s (%s)", p.label, simulate.Thousands(pr.Done), simulate.Thousands(pr.Total), unit, pr.Run)
		p.drawn = true
	}
}
