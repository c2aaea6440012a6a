package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/simulate"
)

func copyCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "copy",
		Usage: "copy runs from one memory database to another: SQLite to PostgreSQL, and back",
		Description: `Copies every run of --from (or only --run's) into --to: the journal, the folds, the recalls
and their state, one transaction per run, under the run's lock on both sides. After each run
it checks that both databases hold the same number of the run's rows in every table and
build the same window for it, byte for byte. A run --to holds already, the same, is left as
it is, so copying again changes nothing; one it holds with other contents (an older copy)
stops the copy unless --replace. The recall index is not copied: --to builds its own from
the database when a run is next synced or searched there.

Both sides build the window with the same settings: --config, else the memory.yaml beside
a SQLite --from, else the one beside a SQLite --to. A PostgreSQL --to must exist (createdb
NAME); its tables are made on first use. Keep passwords out of the URLs with PGPASSWORD or
~/.pgpass, which the driver reads.

Examples:
   delta memory copy --from .delta/memory.db --to postgres://delta@db.internal/fleet
   delta memory copy --from postgres://delta@db.internal/fleet --to ./memory.db --run run-42
   delta memory copy --from old.db --to postgres://delta@db/fleet --replace --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the database to copy from: a SQLite file or a postgres:// URL"},
			&cli.StringFlag{Name: "to", Usage: "the database to copy into: a SQLite file (made if missing) or a postgres:// URL"},
			&cli.BoolFlag{Name: "replace", Usage: "replace a run --to holds with other contents, instead of stopping"},
			&cli.BoolFlag{Name: "json", Usage: "print what was copied as JSON"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := engineConfig(c, e)
			if err != nil {
				return err
			}
			from, to := strings.TrimSpace(c.String("from")), strings.TrimSpace(c.String("to"))
			if from == "" || to == "" {
				return usagef("delta memory copy --from DB --to DB", "copy needs both --from and --to")
			}
			if sameDatabase(from, to) {
				return usagef("delta memory copy --help", "--from and --to are the same database (%s)", sqldb.Redact(from))
			}
			// Both sides build the run's window with the same settings, or
			// the check of the copy would compare two different windows:
			// the settings file named, else the one beside a SQLite source,
			// else the one beside a SQLite destination.
			for _, db := range []string{from, to} {
				if beside := memory.SettingsPath(db); cfg.ConfigFile == "" && beside != "" && fileExists(beside) {
					cfg.ConfigFile = beside
				}
			}
			src := cfg
			src.DBPath, src.MustExist = from, true
			srcEng, err := memory.Open(c.Context, src)
			if errors.Is(err, memory.ErrNoDatabase) {
				return withHint(openError(from, err), "check --from: it names the database to copy runs out of")
			}
			if err != nil {
				return openError(from, err)
			}
			defer srcEng.Close()
			dst := cfg
			dst.DBPath = to
			dstEng, err := memory.Open(c.Context, dst)
			if err != nil {
				return openError(to, err)
			}
			asJSON := c.Bool("json")
			// --run names one run; DELTA_RUN_ID, which an agent's
			// workspace sets, does not narrow a copy.
			var runs []string
			if r := c.String("run"); r != "" {
				runs = []string{r}
			}
			done, err := memory.Copy(c.Context, srcEng, dstEng, memory.CopyOptions{Runs: runs, Replace: c.Bool("replace")},
				func(r memory.CopiedRun) {
					if !asJSON {
						fmt.Fprintf(e.stdout, "%s %s: %s events, %s blocks, %s recalls; the same window on both (%s tokens)\n", r.Action, r.Run,
							simulate.Thousands(r.Rows["events"]), simulate.Thousands(r.Rows["blocks"]), simulate.Thousands(r.Rows["recalls"]), simulate.Thousands(r.WindowTokens))
					}
				})
			release(c.Context, dstEng, err)
			if errors.Is(err, journal.ErrRunNotFound) {
				return withHint(err, fmt.Sprintf("list the runs --from holds with: delta memory runs --db %s", sqldb.Redact(from)))
			}
			if err != nil {
				return err
			}
			if asJSON {
				if done == nil {
					done = []memory.CopiedRun{}
				}
				return writeJSON(e, map[string]any{"from": sqldb.Redact(from), "to": sqldb.Redact(to), "runs": done})
			}
			if len(done) == 0 {
				fmt.Fprintf(e.stdout, "%s holds no runs: nothing to copy\n", sqldb.Redact(from))
			}
			return nil
		},
	})
}

// sameDatabase reports whether two --db values name one database: the same
// file, or the same PostgreSQL host, port and database however the URLs
// are spelled.
func sameDatabase(a, b string) bool {
	if sqldb.IsPostgres(a) != sqldb.IsPostgres(b) {
		return false
	}
	if !sqldb.IsPostgres(a) {
		sa, ea := os.Stat(a)
		sb, eb := os.Stat(b)
		if ea == nil && eb == nil {
			return os.SameFile(sa, sb)
		}
		return filepath.Clean(a) == filepath.Clean(b)
	}
	ka, kb := sqldb.ServerKey(a), sqldb.ServerKey(b)
	return ka != "" && ka == kb
}
