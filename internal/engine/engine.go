// Package engine wires delta-memory together for the CLI and for Go callers:
// it opens the database and owns the stores built on it. Later stages
// (folding, recall, the context window) hang off the same Engine.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/delta-memory/delta-memory/internal/sqlitedb"
	"github.com/delta-memory/delta-memory/journal"
)

// ErrNoDatabase is returned by Open with MustExist when there is no file yet.
var ErrNoDatabase = errors.New("no memory database")

// Config says where the database is and how to open it.
type Config struct {
	// DBPath is the SQLite file. Empty means DefaultDBPath(os.Getenv).
	DBPath string
	// MustExist makes Open fail with ErrNoDatabase instead of creating the
	// file, for commands that only read.
	MustExist bool
}

// Engine is an open delta-memory database and the stores on it.
type Engine struct {
	db      *sqlitedb.DB
	Journal *journal.Store
}

// DefaultDBPath is $DELTA_CWD/.delta/memory.db, or ./.delta/memory.db when
// DELTA_CWD is unset. getenv is injected so tests need not touch the process
// environment.
func DefaultDBPath(getenv func(string) string) string {
	if cwd := getenv("DELTA_CWD"); cwd != "" {
		return filepath.Join(cwd, ".delta", "memory.db")
	}
	return filepath.Join(".delta", "memory.db")
}

// Open opens the engine on cfg.DBPath, creating and migrating the database
// as needed.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	path := cfg.DBPath
	if path == "" {
		path = DefaultDBPath(os.Getenv)
	}
	if cfg.MustExist {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s", ErrNoDatabase, path)
		}
	}
	db, err := sqlitedb.Open(ctx, path, sqlitedb.Options{})
	if err != nil {
		return nil, err
	}
	return &Engine{db: db, Journal: journal.NewStore(db)}, nil
}

// Close closes the database.
func (e *Engine) Close() error { return e.db.Close() }

// Path returns the database file's path.
func (e *Engine) Path() string { return e.db.Path }

// ResolveRun returns the run named id, or the latest run when id is empty.
func (e *Engine) ResolveRun(ctx context.Context, id string) (journal.Run, error) {
	if id == "" {
		return e.Journal.LatestRun(ctx)
	}
	return e.Journal.Run(ctx, id)
}
