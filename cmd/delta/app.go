package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// run executes the CLI and returns the exit code. Only main exits.
func run(ctx context.Context, args []string, e env) int {
	app := newApp(e)
	err := app.RunContext(ctx, hoistFlags(app, args))
	if err != nil {
		printError(e.stderr, err)
	}
	return exitCode(ctx, err)
}

// Global flags and the environment variables that stand in for them. A
// boolean flag takes no value (--verify, or --verify=false).
var globals = []struct {
	name, env, usage string
	boolean          bool
}{
	{"db", "DELTA_MEMORY_DB", "memory database: a SQLite file, or a postgres:// URL for a fleet's shared PostgreSQL (default: $DELTA_CWD/.delta/memory.db, else ./.delta/memory.db)", false},
	{"run", "DELTA_RUN_ID", "run id to work on (default: the run appended to most recently)", false},
	{"budget", "DELTA_MEMORY_BUDGET", "context window budget in tokens (default 32000, or the config file's)", false},
	{"config", "DELTA_MEMORY_CONFIG", "fold settings file, YAML or JSON (default: memory.yaml beside the database, if any)", false},
	{"summarizer", "DELTA_MEMORY_SUMMARIZER", "auto, extractive or llm; auto uses the LLM when OPENAI_API_KEY or OPENAI_BASE_URL is set (default auto)", false},
	{"model", "DELTA_MEMORY_MODEL", "model the llm summarizer asks (default " + fold.DefaultLLMModel + ")", false},
	{"verify", "DELTA_MEMORY_VERIFY", "LLM self-check: a second call asks what each summary misses, and amends it once", true},
	{"llm-timeout", "DELTA_MEMORY_LLM_TIMEOUT", "timeout of each LLM call, e.g. 30s (default 60s)", false},
	{"llm-concurrency", "DELTA_MEMORY_LLM_CONCURRENCY", "LLM summaries made at once (default 4)", false},
}

// globalFlags are attached to every command, so they work where users type
// them: `delta memory import --db x.db FILE` as well as `delta --db x.db …`.
// urfave/cli v2 does not pass a parent's flags down to subcommands. The env
// vars are resolved by global, not by urfave, so that a flag typed at any
// level beats the environment.
func globalFlags() []cli.Flag {
	out := make([]cli.Flag, len(globals))
	for i, g := range globals {
		usage := fmt.Sprintf("%s [$%s]", g.usage, g.env)
		if g.boolean {
			out[i] = &cli.BoolFlag{Name: g.name, Usage: usage}
			continue
		}
		out[i] = &cli.StringFlag{Name: g.name, Usage: usage}
	}
	return out
}

// global returns a global flag's value: from the innermost command where the
// user typed it, else from its environment variable, else "".
func global(c *cli.Context, e env, name string) string {
	return globalSetting(c, e, name).value
}

func newApp(e env) *cli.App {
	app := &cli.App{
		Name:            "delta",
		Usage:           "memory folding for long-running LLM agents",
		Version:         buildVersion(),
		HideHelpCommand: true,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		Flags:           globalFlags(),
		// Errors travel up to run, which prints them and picks the exit code.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		Action:         unknownCommand,
		Commands: []*cli.Command{{
			Name:  "memory",
			Usage: "import, fold and inspect an agent's journal",
			Description: `delta memory keeps an agent's whole journal in SQLite (or a fleet's PostgreSQL) and builds its context from it.

Examples:
   delta memory import .delta/run-42/journal.jsonl
   delta memory runs
   delta memory show --iteration 12`,
			Flags:        globalFlags(),
			OnUsageError: onUsageError,
			Action:       unknownCommand,
			Subcommands: []*cli.Command{
				importCommand(e),
				runsCommand(e),
				showCommand(e),
				contextCommand(e),
				foldCommand(e),
				unfoldCommand(e),
				bookmarkCommand(e),
				milestoneCommand(e),
				retrieveCommand(e),
				syncCommand(e),
				residentCommand(e),
				simulateCommand(e),
				demoCommand(e),
				reindexCommand(e),
				copyCommand(e),
				configCommand(e),
				toolsCommand(e),
				mcpCommand(e),
				visualizeCommand(e),
				evalCommand(e),
			},
		}},
	}
	ownHelp(app.Commands)
	return app
}

// command fills in what every leaf command shares: the global flags and the
// usage-error hook.
func command(c *cli.Command) *cli.Command {
	c.Flags = append(c.Flags, globalFlags()...)
	c.OnUsageError = onUsageError
	return c
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	return usagef(fmt.Sprintf("%s --help", c.Command.HelpName), "%v", err)
}

// unknownCommand runs for a parent command given no subcommand, or one it
// does not have. Either is a usage error (exit 2): the help goes to
// stderr, where it does not mix with output a script reads.
func unknownCommand(c *cli.Context) error {
	name := c.Command.HelpName
	if name == "" {
		name = c.App.Name
	}
	if c.Args().Present() {
		return usagef(name+" --help", "unknown command %q", c.Args().First())
	}
	out := c.App.Writer
	c.App.Writer = c.App.ErrWriter
	err := cli.ShowSubcommandHelp(c)
	c.App.Writer = out
	if err != nil {
		return err
	}
	return usagef(name+" COMMAND (the commands are listed above)", "%s: missing command", name)
}

// openEngine opens the database named by --db (or the default).
func openEngine(c *cli.Context, e env, mustExist bool) (*memory.Engine, error) {
	cfg, err := engineConfig(c, e)
	if err != nil {
		return nil, err
	}
	cfg.MustExist = mustExist
	eng, err := memory.Open(c.Context, cfg)
	if err != nil {
		return nil, openError(cfg.DBPath, err)
	}
	return eng, nil
}

// openError names the database in an error from memory.Open, unless the
// error names it already or is about the settings, where the database is
// beside the point: a bad memory.yaml is named by its own path.
func openError(dbPath string, err error) error {
	var ce *memory.ConfigError
	name := sqldb.Redact(dbPath)
	if errors.As(err, &ce) || errors.Is(err, memory.ErrLLMSettings) || strings.Contains(err.Error(), name) {
		return err
	}
	return fmt.Errorf("open %s: %w", name, err)
}

// release closes an engine that a writing command opened. When the
// command failed it discards the engine instead, which removes a database
// the command created but stored nothing in (see memory.Engine.Discard).
func release(ctx context.Context, eng *memory.Engine, err error) {
	if err != nil {
		eng.Discard(ctx)
		return
	}
	eng.Close()
}

// engineConfig reads the global flags (and their environment variables)
// into an engine configuration.
func engineConfig(c *cli.Context, e env) (memory.Config, error) {
	path := global(c, e, "db")
	if path == "" {
		path = memory.DefaultDBPath(e.getenv)
	}
	budget := 0
	if b := globalSetting(c, e, "budget"); b.value != "" {
		n, err := b.atLeast(500, "tokens", "32000")
		if err != nil {
			return memory.Config{}, err
		}
		budget = n
	}
	lc, err := llmConfig(c, e)
	if err != nil {
		return memory.Config{}, err
	}
	return memory.Config{
		DBPath: path, Budget: budget, ConfigFile: global(c, e, "config"), LLM: lc,
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "Warning: %s\n", msg) },
	}, nil
}

// openRun opens the database (which must exist) and resolves --run, or the
// latest run. The caller closes the engine.
func openRun(c *cli.Context, e env) (*memory.Engine, journal.Run, error) {
	eng, err := openEngine(c, e, true)
	if err != nil {
		return nil, journal.Run{}, err
	}
	run, err := eng.ResolveRun(c.Context, global(c, e, "run"))
	if err != nil {
		eng.Close()
		return nil, journal.Run{}, err
	}
	return eng, run, nil
}

// oneOf checks an enumerated flag value; cmd names the command for the hint.
func oneOf(cmd, flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usagef(cmd+" --help", "--%s %q: want %s", flag, value, strings.Join(allowed, ", "))
}

var errNoArgs = errors.New("missing argument")
