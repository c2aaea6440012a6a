package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/simulate"
)

func syncCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "sync",
		Usage: "Delta Engine computed_file generator: import new journal lines, fold, recall, write memory.md",
		Description: `Run before every LLM call by Delta Engine (a computed_file generator in context.yaml). Each call
imports only the journal lines appended since the last one (a last line without a newline is
left for next time), runs the fold scheduler and the recall triggers, and writes the folded
memory as Markdown, atomically: a reader never sees half a file.

The file holds everything older than the --keep-recent newest iterations, which Delta's own
journal source shows in full (set its max_iterations to the same number): the folded
chapters and summaries, older iterations still in full, recalled history and the dynamic
state (errors, files, bookmarks, the goal). --budget bounds the file.

Inputs come from Delta's environment, and flags override them:
   DELTA_CWD         the workspace (--cwd); the journal is $DELTA_CWD/.delta/$DELTA_RUN_ID/journal.jsonl
   DELTA_RUN_ID      the run (--run); without it, the most recently written journal in .delta/
   DELTA_AGENT_HOME  the agent project (--agent-home); its memory.yaml is used when there is one

A missing or empty journal gives a short valid file and exit 0. Another sync of the same
workspace is waited for (up to 10 s), then sync fails with a clear error.

With an LLM summarizer, a fold never waits for the model: the block is stored with its
extractive summary, and the model's replaces it when it arrives, within what is left of
--deadline (default 10s, DELTA_MEMORY_DEADLINE), else in the resident process between
syncs, else in a later sync. A hung or failing
endpoint costs one sync its deadline; after 3 failures in a row no call is made for 2
minutes (the circuit breaker, shared by every sync of the database). Each time the sync
did without the model, it says so in one line on stderr.

context.yaml:
   - type: computed_file
     id: folded_memory
     generator:
       command: ["delta", "memory", "sync", "--keep-recent", "5"]
       timeout_ms: 30000
     output_path: "${CWD}/.delta/context_artifacts/memory.md"
     on_missing: skip
   - type: journal
     max_iterations: 5

Examples:
   delta memory sync
   DELTA_CWD=/work/ws DELTA_RUN_ID=run-42 delta memory sync --budget 8000
   delta memory sync --cwd /work/ws --run run-42 --output /tmp/memory.md --json
   DELTA_MEMORY_DEADLINE=5s delta memory sync`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "Markdown FILE to write (default: $DELTA_CWD/.delta/context_artifacts/memory.md)"},
			keepRecentFlag("newest iterations left to Delta's journal source"),
			&cli.StringFlag{Name: "cwd", Usage: "the agent's workspace (default: $DELTA_CWD, else .)"},
			&cli.StringFlag{Name: "agent-home", Usage: "the agent project, for its memory.yaml (default: $DELTA_AGENT_HOME)"},
			&cli.StringFlag{Name: "journal", Usage: "journal FILE to read (default: $DELTA_CWD/.delta/$DELTA_RUN_ID/journal.jsonl)"},
			&cli.StringFlag{Name: "deadline", Usage: "write the memory within this DURATION, not waiting longer for the LLM's summaries (default 10s) [$DELTA_MEMORY_DEADLINE]"},
			&cli.BoolFlag{Name: "json", Usage: "print what the call did as JSON"},
		},
		Action: func(c *cli.Context) error {
			start := time.Now()
			// A sync is a short process that allocates a few MB: collecting
			// garbage would cost more than it frees. The limit brings the
			// collector back for a first sync of a very long journal.
			debug.SetGCPercent(-1)
			debug.SetMemoryLimit(512 << 20)
			in, err := syncInputs(c, e, start)
			if err != nil {
				return err
			}
			asJSON := c.Bool("json")
			spawn := false
			if residentOn(e) {
				var served bool
				if served, spawn, err = syncResident(c.Context, e, in, asJSON); served {
					return err
				}
			}
			eng, err := memory.Open(c.Context, in.engine)
			if err != nil {
				return openError(in.engine.DBPath, err)
			}
			if e.exits {
				defer eng.Leave()
			} else {
				defer eng.Close()
			}
			out, err := runSync(c.Context, eng, in)
			if err != nil {
				eng.Discard(c.Context) // no empty database left behind
				return err
			}
			if spawn {
				startResident(in.engine.DBPath, in.run)
			}
			return printSync(e, asJSON, out)
		},
	})
}

// runSync is one sync on an open engine: the engine's work, then the
// Markdown written atomically. A resident server runs it too.
func runSync(ctx context.Context, eng *memory.Engine, in syncIn) (syncJSON, error) {
	res, err := eng.Sync(ctx, memory.SyncOptions{Journal: in.journal, RunID: in.run, KeepRecent: in.keep, Deadline: in.deadline})
	if err != nil {
		return syncJSON{}, fmt.Errorf("sync %s: %w", in.journal, err)
	}
	// The file it replaces, for how much of it a prompt cache reuses
	// (memory.RecordSync); a file too large to be ours is not compared.
	var prev []byte
	if st, err := os.Stat(in.output); err == nil && st.Mode().IsRegular() && st.Size() <= maxMemoryFile {
		prev, _ = os.ReadFile(in.output)
	}
	if err := writeAtomic(in.output, []byte(res.Markdown)); err != nil {
		return syncJSON{}, err
	}
	if res.Context != nil && res.Import.Run != "" {
		if err := eng.RecordSync(ctx, res.Import.Run, res.Import.Iterations, string(prev), res.Context); err != nil {
			return syncJSON{}, err
		}
	}
	return syncOut(in, res), nil
}

// maxMemoryFile bounds the previous memory file a sync reads to compare:
// a budget of a million tokens stays well under it.
const maxMemoryFile = 16 << 20

// syncIn is what one sync call works on, after flags and environment.
type syncIn struct {
	engine  memory.Config
	journal string
	run     string
	output  string
	keep    int
	// deadline is when the memory must be written (SyncOptions.Deadline).
	deadline time.Time
}

// syncInputs resolves sync's inputs: a flag beats Delta's environment,
// which beats the defaults.
func syncInputs(c *cli.Context, e env, start time.Time) (syncIn, error) {
	var in syncIn
	d, err := syncDeadline(c, e)
	if err != nil {
		return in, err
	}
	in.deadline = start.Add(d)
	cwd := cmp.Or(c.String("cwd"), e.getenv("DELTA_CWD"), ".")
	in.run = global(c, e, "run")
	in.journal = c.String("journal")
	if in.journal == "" {
		if in.run == "" {
			in.run = latestJournalRun(cwd)
		}
		if in.run == "" {
			return in, usagef("set DELTA_RUN_ID, or pass --run RUN or --journal FILE",
				"no run to sync: DELTA_RUN_ID is unset and %s has no journal yet", filepath.Join(cwd, ".delta"))
		}
		in.journal = memory.JournalPath(cwd, in.run)
	}
	in.output = cmp.Or(c.String("output"), filepath.Join(cwd, ".delta", "context_artifacts", "memory.md"))
	if in.keep, err = keepRecent(c, e); err != nil {
		return in, err
	}
	ecfg, err := engineConfig(c, e)
	if err != nil {
		return in, err
	}
	ecfg.DBPath = syncDBPath(c, e)
	if ecfg.ConfigFile == "" {
		if home := cmp.Or(c.String("agent-home"), e.getenv("DELTA_AGENT_HOME")); home != "" {
			if p := filepath.Join(home, "memory.yaml"); fileExists(p) {
				ecfg.ConfigFile = p
			}
		}
	}
	// A sync is one short flow of work: one connection to the database
	// spares it opening a second (each reads the whole schema).
	ecfg.OneConnection = true
	in.engine = ecfg
	return in, nil
}

// syncDBPath is the database sync works on: --db (or DELTA_MEMORY_DB),
// else .delta/memory.db in the workspace (--cwd, else DELTA_CWD, else .).
func syncDBPath(c *cli.Context, e env) string {
	if p := global(c, e, "db"); p != "" {
		return p
	}
	return filepath.Join(cmp.Or(c.String("cwd"), e.getenv("DELTA_CWD"), "."), ".delta", "memory.db")
}

// syncDeadline reads --deadline, else DELTA_MEMORY_DEADLINE, else
// memory.DefaultDeadline.
func syncDeadline(c *cli.Context, e env) (time.Duration, error) {
	s := flagOrEnv(c, e, "deadline", "DELTA_MEMORY_DEADLINE")
	if s.value == "" {
		return memory.DefaultDeadline, nil
	}
	d, err := time.ParseDuration(s.value)
	if err != nil || d <= 0 {
		return 0, s.invalid("a duration under the generator's timeout_ms, such as 10s", "10s")
	}
	return d, nil
}

// keepRecentFlag is --keep-recent, shared by sync, simulate and demo.
func keepRecentFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "keep-recent", Usage: usage + " (default 5) [$DELTA_MEMORY_KEEP_RECENT]"}
}

// keepRecent reads --keep-recent, else DELTA_MEMORY_KEEP_RECENT, else
// memory.DefaultKeepRecent.
func keepRecent(c *cli.Context, e env) (int, error) {
	k := flagOrEnv(c, e, "keep-recent", "DELTA_MEMORY_KEEP_RECENT")
	if k.value == "" {
		return memory.DefaultKeepRecent, nil
	}
	return k.atLeast(0, "iterations", "5")
}

// latestJournalRun names the run whose .delta/<run>/journal.jsonl was
// written last, or "" when there is none.
func latestJournalRun(cwd string) string {
	paths, _ := filepath.Glob(filepath.Join(cwd, ".delta", "*", "journal.jsonl"))
	var best string
	var bestTime int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if t := st.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = p, t
		}
	}
	if best == "" {
		return ""
	}
	return filepath.Base(filepath.Dir(best))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// syncJSON is `sync --json`.
type syncJSON struct {
	Run           string   `json:"run"`
	Journal       string   `json:"journal"`
	Output        string   `json:"output"`
	NewEvents     int      `json:"new_events"`
	Iterations    int      `json:"iterations"`
	NewIterations int      `json:"new_iterations"`
	Tokens        int      `json:"tokens"`
	Budget        int      `json:"budget"`
	KeepRecent    int      `json:"keep_recent"`
	Folds         []string `json:"folds"`
	Recalls       []string `json:"recalls"`
}

// syncOut is what a sync did, as `sync --json` prints it.
func syncOut(in syncIn, res memory.SyncResult) syncJSON {
	out := syncJSON{
		// An empty or missing journal imports nothing, and names no run.
		Run: cmp.Or(res.Import.Run, in.run, filepath.Base(filepath.Dir(in.journal))), Journal: in.journal, Output: in.output, NewEvents: res.Import.Added,
		Iterations: res.Import.Iterations, NewIterations: res.Import.NewIterations, KeepRecent: in.keep,
		Folds: []string{}, Recalls: []string{},
	}
	if res.Context != nil {
		out.Tokens, out.Budget = res.Context.Tokens, res.Context.Budget
	}
	for _, f := range res.Step.Fold.Folds {
		out.Folds = append(out.Folds, fmt.Sprintf("L%d %d-%d (%s)", f.Level, f.First, f.Last, f.Trigger))
	}
	for _, r := range res.Step.Recall.Recalls {
		out.Recalls = append(out.Recalls, fmt.Sprintf("%d-%d (%s: %s)", r.First, r.Last, r.Reason, r.Query))
	}
	return out
}

func printSync(e env, asJSON bool, out syncJSON) error {
	if asJSON {
		return writeJSON(e, out)
	}
	// Delta Engine ignores a generator's stdout; one line helps a human.
	if out.Budget == 0 {
		// No window was built: the journal is missing, empty or half a line.
		fmt.Fprintf(e.stdout, "%s: nothing to fold yet: %s holds no complete event → %s\n", out.Run, out.Journal, out.Output)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: %s iterations (+%s), %s tokens of %s, %s folds, %s recalls → %s\n", out.Run, simulate.Thousands(out.Iterations),
		simulate.Thousands(out.NewIterations), simulate.Thousands(out.Tokens), simulate.Thousands(out.Budget), simulate.Thousands(len(out.Folds)), simulate.Thousands(len(out.Recalls)), out.Output)
	return nil
}
