package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/delta-memory/delta-memory/journal"
)

// created is what Open made on disk: the database file, when there was
// none, and the directories above it that did not exist. A command that
// fails before it stores anything removes them again (Discard), so that a
// mistyped --db leaves no directory and no empty database behind.
type created struct {
	// db is the database's path when Open created the file, else "".
	db string
	// dirs are the directories Open created, innermost first.
	dirs []string
}

// plan notes what opening a database at path will create.
func plan(path string) created {
	var c created
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return c
	}
	c.db = path
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			break
		}
		c.dirs = append(c.dirs, dir)
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	return c
}

// remove deletes what was created: the database with its WAL, shared
// memory, lock and index, then the directories, each only if empty.
func (c created) remove() {
	if c.db == "" {
		return
	}
	for _, p := range []string{c.db, c.db + "-wal", c.db + "-shm", c.db + "-journal", c.db + ".lock"} {
		os.Remove(p)
	}
	os.RemoveAll(IndexPath(c.db))
	for _, d := range c.dirs {
		os.Remove(d) // fails, and keeps d, when something else is in it
	}
}

// Discard closes the engine after a command failed. When Open created the
// database and no run was stored in it since, it also removes the database
// and the directories Open created: a failed first import leaves nothing
// behind. It holds the import lock while it looks, so that it does not
// remove a database another process has just imported into. After it,
// Close and Leave do nothing.
func (e *Engine) Discard(ctx context.Context) error {
	if e.closed {
		return nil
	}
	empty := false
	if e.made.db != "" {
		// A fresh context: the command's may be cancelled already (^C).
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.lockWait)
		defer cancel()
		if lock, err := e.exclusive(ctx, ""); err == nil {
			defer lock.Release()
			_, err := e.Journal.LatestRun(ctx)
			empty = errors.Is(err, journal.ErrNoRuns)
		}
	}
	err := e.Close()
	if empty {
		e.made.remove()
	}
	return err
}
