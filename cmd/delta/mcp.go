package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

func mcpCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "mcp",
		Usage: "serve the run's memory to an MCP client over stdio",
		Description: `Runs a Model Context Protocol server on stdin and stdout, for Claude Code, Codex, Cursor
or any MCP client. Only protocol goes to stdout; warnings and logs go to stderr.

Tools:
   recall_memory     search the run's history and bring matches into Retrieved (as retrieve)
   bookmark_memory   keep an iteration in the window, with a note (as bookmark)
   memory_context    the context window as Markdown, optionally under another budget
   memory_status     the run's summary as JSON: counts, blocks, window, recalls, LLM state
   milestone         declare a phase done: one chapter since the last milestone
   unfold            show a folded block's children or iterations again

Resources (templates; {id} is a run id, see delta memory runs):
   memory://runs/{id}/context   the window as Markdown
   memory://runs/{id}/status    the run's summary as JSON

The global flags and their environment variables choose the workspace: --db, --run (default:
the run appended to most recently, looked up again on every call) and --budget. Each call
reads the database afresh, so what a sync or an import in another process appended shows
at the next call. A bad argument is a tool error naming the argument; the server goes on.
The server ends when stdin closes, once it has answered every request it read, so a script
may pipe its requests in and close stdin at once.

Examples:
   delta memory mcp
   delta memory mcp --db /path/to/project/.delta/memory.db --budget 16000
   claude mcp add delta-memory -e DELTA_MEMORY_DB=$PWD/.delta/memory.db -- delta memory mcp`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("delta memory mcp (the server takes no arguments; see --help)", "unexpected argument %q", c.Args().First())
			}
			cfg, err := engineConfig(c, e)
			if err != nil {
				return err
			}
			s := &mcpServer{e: e, cfg: cfg, run: global(c, e, "run")}
			fmt.Fprintf(e.stderr, "delta memory mcp: serving %s (run: %s) on stdio\n", sqldb.Redact(cfg.DBPath), s.runName())
			af := newAnswerFirst(e.input(), e.stdout)
			err = s.server().Run(c.Context, &mcp.IOTransport{Reader: io.NopCloser(af), Writer: nopWriteCloser{af}})
			if errors.Is(err, io.EOF) {
				return nil // the client closed stdin: the normal way to end
			}
			return err
		},
	})
}

// mcpServer answers MCP requests on one workspace. It keeps no engine open
// between calls: each opens the database, resolves the run and closes
// both, so that it sees what other processes appended in between, and
// leaves the recall index free for their imports and syncs.
type mcpServer struct {
	e   env
	cfg memory.Config
	// run is --run; "" means the latest run, resolved on each call.
	run string
	// mu makes calls one at a time, as one CLI command after another: the
	// database takes one writer, and a recall's bookkeeping is not meant
	// to interleave with another's.
	mu sync.Mutex
}

func (s *mcpServer) runName() string {
	if s.run == "" {
		return "latest"
	}
	return s.run
}

// server builds the MCP server with its tools and resource templates.
func (s *mcpServer) server() *mcp.Server {
	logger := slog.New(slog.NewTextHandler(s.e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcp.NewServer(&mcp.Implementation{Name: "delta-memory", Title: "delta-memory", Version: buildVersion()}, &mcp.ServerOptions{
		Logger:       logger,
		Instructions: mcpInstructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	for _, t := range s.tools() {
		srv.AddTool(t.tool, s.handle(t))
	}
	for _, r := range s.resources() {
		srv.AddResourceTemplate(r.template, s.read(r))
	}
	return srv
}

const mcpInstructions = `delta-memory keeps this agent's whole journal and folds old iterations into summaries.
Call recall_memory with exact paths, identifiers or error text to bring folded detail back,
bookmark_memory to keep an iteration in view, memory_context to read the window, and
memory_status for the run's figures.`

// open opens the engine and resolves the run: id, else --run, else the
// latest. budget > 0 replaces the configured budget. The caller closes
// the engine.
func (s *mcpServer) open(ctx context.Context, id string, budget int) (*memory.Engine, journal.Run, error) {
	cfg := s.cfg
	cfg.MustExist = true
	if budget > 0 {
		cfg.Budget = budget
	}
	eng, err := memory.Open(ctx, cfg)
	if err != nil {
		return nil, journal.Run{}, openError(cfg.DBPath, err)
	}
	if id == "" {
		id = s.run
	}
	run, err := eng.ResolveRun(ctx, id)
	if err != nil {
		eng.Close()
		return nil, journal.Run{}, err
	}
	return eng, run, nil
}

// toolError is what the model reads when a call fails: the error, and
// the fix the CLI would suggest for it.
func toolError(err error) string {
	msg := "Error: " + err.Error()
	if h := hintFor(err); h != "" {
		msg += "\nTry: " + h
	}
	return msg
}

// nopWriteCloser leaves stdout open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// input is the process's stdin, or an empty one for a CLI run in-process
// without it.
func (e env) input() io.Reader {
	if e.stdin == nil {
		return strings.NewReader("")
	}
	return e.stdin
}
