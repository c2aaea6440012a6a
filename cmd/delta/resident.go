package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/resident"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/simulate"
)

// opSync is the resident server's one op of its own: a sync.
const opSync = "sync"

// residentCallWait bounds a sync handed to the resident server; past it
// the command gives up and syncs itself. The server finishes its sync,
// and the lock between syncs orders the two.
const residentCallWait = 5 * time.Minute

// residentOn says whether sync uses the resident server: only in a real
// process (not the CLI run in-process by tests), unless
// DELTA_MEMORY_RESIDENT turns it off.
func residentOn(e env) bool {
	if !e.exits {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(e.getenv("DELTA_MEMORY_RESIDENT"))) {
	case "0", "off", "false", "no":
		return false
	}
	return true
}

// residentSync is a sync as the client resolved it, sent to the server.
// Paths are absolute: the server runs in another directory. The engine
// settings go as they are, but for their functions (Warn), which JSON
// leaves out.
type residentSync struct {
	Engine  memory.Config `json:"engine"`
	Journal string        `json:"journal"`
	Run     string        `json:"run,omitempty"`
	Output  string        `json:"output"`
	Keep    int           `json:"keep_recent"`
	// Deadline is when the client must have its memory written.
	Deadline time.Time `json:"deadline"`
}

// residentReply is the outcome of a served sync: what --json prints, or
// the error as the client prints it, and the warnings on the way.
type residentReply struct {
	Out      syncJSON `json:"out"`
	Warnings []string `json:"warnings,omitempty"`
	Error    string   `json:"error,omitempty"`
	Hint     string   `json:"hint,omitempty"`
}

func toResident(in syncIn) (residentSync, error) {
	r := residentSync{Engine: in.engine, Run: in.run, Keep: in.keep, Deadline: in.deadline}
	var err error
	for _, p := range []struct {
		dst *string
		src string
	}{
		{&r.Engine.ConfigFile, in.engine.ConfigFile}, {&r.Journal, in.journal}, {&r.Output, in.output},
	} {
		if p.src == "" {
			continue
		}
		if *p.dst, err = filepath.Abs(p.src); err != nil {
			return r, err
		}
	}
	r.Engine.DBPath, err = resident.Key(in.engine.DBPath)
	return r, err
}

func (r residentSync) syncIn(warn func(string)) syncIn {
	cfg := r.Engine
	cfg.Warn = warn
	return syncIn{engine: cfg, journal: r.Journal, run: r.Run, output: r.Output, keep: r.Keep, deadline: r.Deadline}
}

// syncResident hands the sync to the database's resident server. served
// says that the server did it (err is then the sync's own outcome);
// otherwise the caller syncs itself, and spawn says to start a server
// after, because none answered for this build.
func syncResident(ctx context.Context, e env, in syncIn, asJSON bool) (served, spawn bool, err error) {
	sock, err := resident.SocketPath(residentKey(in.engine.DBPath, in.run))
	if err != nil {
		return false, false, nil
	}
	req, err := toResident(in)
	if err != nil {
		return false, false, nil
	}
	body, err := json.Marshal(req)
	if err != nil {
		return false, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, residentCallWait)
	defer cancel()
	rep, err := resident.Call(ctx, sock, opSync, body)
	switch {
	case errors.Is(err, resident.ErrNoServer):
		return false, true, nil
	case err != nil, rep.Error != "":
		// A server that failed to serve: this process does the work.
		return false, false, nil
	case rep.Mismatch:
		return false, true, nil
	}
	var r residentReply
	if err := json.Unmarshal(rep.Body, &r); err != nil {
		return false, false, nil
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if r.Error != "" {
		return true, false, withHint(errors.New(r.Error), r.Hint)
	}
	// The paths as this command named them, not as the server was sent them.
	r.Out.Journal, r.Out.Output = in.journal, in.output
	return true, false, printSync(e, asJSON, r.Out)
}

// startResident starts a resident server for the database, detached,
// for the syncs to come. It is best effort: a sync that finds no server
// does its own work, so a failure here costs only speed, and it goes to
// the server's log.
func startResident(dbPath, run string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	abs, err := resident.Key(dbPath)
	if err != nil {
		return
	}
	log := residentLog(residentKey(abs, run))
	args, env := []string{"memory", "resident", "--db", abs, "--spawned"}, []string(nil)
	if sqldb.IsPostgres(abs) {
		// The URL may hold a password: the server reads it from its
		// environment, not from its command line. It serves one run.
		args, env = []string{"memory", "resident", "--spawned"}, []string{"DELTA_MEMORY_DB=" + abs, "DELTA_RUN_ID=" + run}
	}
	if err := resident.Spawn(exe, args, env, log); err != nil {
		if f, ferr := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); ferr == nil {
			fmt.Fprintf(f, "%s delta-memory resident: %v\n", time.Now().UTC().Format(time.RFC3339), err)
			f.Close()
		}
	}
}

// residentKey names the resident server a sync of run goes to: the
// SQLite file's, whose syncs take turns anyway (the lock file), or on
// PostgreSQL the run's, so that the agents of one worker, each a run,
// do not queue behind one server.
func residentKey(dbPath, run string) string {
	key, err := resident.Key(dbPath)
	if err != nil || !sqldb.IsPostgres(dbPath) {
		return key
	}
	return key + "\x00run=" + run
}

// residentLog is the server's log, beside the database: memory.db →
// memory.resident.log; for a PostgreSQL database, beside its socket (key
// is residentKey's).
func residentLog(key string) string {
	if sqldb.IsPostgres(key) {
		if sock, err := resident.SocketPath(key); err == nil {
			return strings.TrimSuffix(sock, ".sock") + ".resident.log"
		}
	}
	return strings.TrimSuffix(key, filepath.Ext(key)) + ".resident.log"
}

// syncServer does the syncs handed to a resident server. It keeps the
// database open between them, and opens it again when the file at its
// path is another (deleted, or replaced by a restore).
type syncServer struct {
	path string
	db   *sqldb.DB
	file os.FileInfo
}

func (s *syncServer) handle(ctx context.Context, op string, body json.RawMessage) (json.RawMessage, func(context.Context), error) {
	if op != opSync {
		return nil, nil, fmt.Errorf("unknown op %q", op)
	}
	var req residentSync
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, fmt.Errorf("read sync request: %w", err)
	}
	if key, _ := resident.Key(req.Engine.DBPath); key != s.path {
		return nil, nil, fmt.Errorf("this server serves %s, not %s", sqldb.Redact(s.path), sqldb.Redact(req.Engine.DBPath))
	}
	if err := s.open(ctx); err != nil {
		return nil, nil, err
	}
	// A sync handed over runs to its end, as one whose process is told to
	// stop does. Without a cancel channel, database/sql and the driver
	// start no goroutine per query to watch one.
	ctx = context.WithoutCancel(ctx)
	var r residentReply
	in := req.syncIn(func(msg string) { r.Warnings = append(r.Warnings, msg) })
	eng, err := memory.OpenOn(s.db, in.engine)
	if err != nil {
		r.Error = fmt.Sprintf("open %s: %v", sqldb.Redact(in.engine.DBPath), err)
		reply, err := json.Marshal(r)
		return reply, nil, err
	}
	out, err := runSync(ctx, eng, in)
	if err != nil {
		r.Error, r.Hint = err.Error(), hintFor(err)
	}
	r.Out = out
	reply, jerr := json.Marshal(r)
	after := func(bg context.Context) {
		defer eng.Release()
		if err != nil || out.Run == "" {
			return
		}
		// The index catch-up a sync makes once in recall.index_every
		// iterations, done here after the answer, one iteration early, so
		// that the next sync finds nothing due; then the model's summaries
		// the sync did not wait for. The next sync cuts both short. Their
		// failures are the next sync's to meet and report.
		if _, ierr := eng.IndexIfDue(bg, out.Run, 1); ierr != nil && bg.Err() == nil {
			fmt.Fprintf(os.Stderr, "%s delta-memory resident: index %s: %v\n", time.Now().UTC().Format(time.RFC3339), out.Run, ierr)
		}
		if _, uerr := eng.UpgradeWaiting(bg, out.Run); uerr != nil && bg.Err() == nil {
			fmt.Fprintf(os.Stderr, "%s delta-memory resident: LLM summaries of %s: %v\n", time.Now().UTC().Format(time.RFC3339), out.Run, uerr)
		}
	}
	return reply, after, jerr
}

// open opens the database, unless the one open is still the file at the
// path.
func (s *syncServer) open(ctx context.Context) error {
	if s.db != nil && s.db.Dialect == sqldb.Postgres {
		// A shared database stays where it is, but a worker of a newer
		// build may have migrated it: open it again, which refuses a
		// schema this build does not know.
		if ok, err := s.db.SchemaCurrent(ctx); err == nil && ok {
			return nil
		}
	}
	st, err := os.Stat(s.path)
	if s.db != nil && err == nil && os.SameFile(st, s.file) {
		return nil
	}
	s.close()
	db, err := sqldb.Open(ctx, s.path, sqldb.Options{OneConnection: true})
	if err != nil {
		return err
	}
	if db.Dialect == sqldb.SQLite {
		if s.file, err = os.Stat(s.path); err != nil {
			db.Close()
			return err
		}
	}
	s.db = db
	return nil
}

func (s *syncServer) close() {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
}

func residentCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "resident",
		Usage: "keep a warm sync process beside a workspace's database, or --stop / --status it",
		Description: `delta memory sync runs before every LLM call. The first sync of a workspace starts this
process in the background; later syncs hand their work to it, and so skip a new process's
cold start: opening SQLite, preparing statements, faulting in the program. Each sync still
runs as its own command, with the same output, errors and exit code.

The process serves one database, through a Unix socket in $TMPDIR/delta-memory-UID/ (a
directory only its user can enter). It exits after --idle without a sync, when a sync of
another delta build arrives (that sync then starts a new one), or on --stop. It holds no
lock between syncs: other commands use the database and the recall index as usual. Its
failures go to memory.resident.log beside the database.

Set DELTA_MEMORY_RESIDENT=off to make every sync do its own work and start nothing.

Examples:
   delta memory resident --status
   delta memory resident --stop
   DELTA_CWD=/work/ws delta memory resident --idle 1h     # run it in the foreground`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "the agent's workspace (default: $DELTA_CWD, else .)"},
			&cli.StringFlag{Name: "idle", Usage: "exit after this long without a sync, e.g. 30m (default 10m) [$DELTA_MEMORY_RESIDENT_IDLE]"},
			&cli.BoolFlag{Name: "stop", Usage: "stop the running process"},
			&cli.BoolFlag{Name: "status", Usage: "show whether it runs, and what it did"},
			&cli.BoolFlag{Name: "json", Usage: "with --status, print JSON"},
			&cli.BoolFlag{Name: "spawned", Hidden: true, Usage: "started by a sync: exit quietly when one already runs"},
		},
		Action: func(c *cli.Context) error {
			path, err := resident.Key(syncDBPath(c, e))
			if err != nil {
				return err
			}
			sock, err := resident.SocketPath(residentKey(path, global(c, e, "run")))
			if err != nil {
				return err
			}
			switch {
			case c.Bool("stop"):
				return residentStop(c.Context, e, sock)
			case c.Bool("status"):
				return residentStatus(c.Context, e, sock, sqldb.Redact(path), c.Bool("json"))
			}
			idle := resident.DefaultIdle
			if v := flagOrEnv(c, e, "idle", "DELTA_MEMORY_RESIDENT_IDLE"); v.value != "" {
				if idle, err = time.ParseDuration(v.value); err != nil || idle <= 0 {
					return v.invalid("a duration > 0", "30m")
				}
			}
			// A sync is one flow of work: with one processor the server
			// does not wake idle threads to steal goroutines that last
			// microseconds, which cost it a tenth of a sync.
			if os.Getenv("GOMAXPROCS") == "" {
				runtime.GOMAXPROCS(1)
			}
			ss := &syncServer{path: path}
			defer ss.close()
			srv := &resident.Server{Socket: sock, Database: sqldb.Redact(path), Idle: idle, Handle: ss.handle, Log: e.stderr}
			if !c.Bool("spawned") {
				srv.Wait = 2 * time.Second // for one on its way out
			}
			err = srv.Serve(c.Context)
			if errors.Is(err, resident.ErrRunning) && c.Bool("spawned") {
				return nil
			}
			return err
		},
	})
}

func residentStop(ctx context.Context, e env, sock string) error {
	_, err := resident.Call(ctx, sock, resident.OpStop, nil)
	if errors.Is(err, resident.ErrNoServer) {
		fmt.Fprintln(e.stdout, "no resident process runs for this database")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "stopped the resident process")
	return nil
}

func residentStatus(ctx context.Context, e env, sock, path string, asJSON bool) error {
	rep, err := resident.Call(ctx, sock, resident.OpStatus, nil)
	running := err == nil
	if err != nil && !errors.Is(err, resident.ErrNoServer) {
		return err
	}
	var st resident.Status
	if running {
		if err := json.Unmarshal(rep.Body, &st); err != nil {
			return fmt.Errorf("resident status: %w", err)
		}
	}
	if asJSON {
		out := struct {
			Running bool             `json:"running"`
			DB      string           `json:"database"`
			Socket  string           `json:"socket"`
			Status  *resident.Status `json:"status,omitempty"`
		}{Running: running, DB: path, Socket: sock}
		if running {
			out.Status = &st
		}
		return writeJSON(e, out)
	}
	if !running {
		fmt.Fprintf(e.stdout, "no resident process runs for %s\n", path)
		return nil
	}
	fmt.Fprintf(e.stdout, "resident process %d for %s\n  started %s, %s syncs served, exits after %s idle\n  socket %s\n",
		st.PID, st.Database, st.Started, simulate.Thousands(st.Served), st.Idle, st.Socket)
	return nil
}
