package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/lockfile"
	_ "modernc.org/sqlite" // the driver; stmtcache.go wraps its connector
)

// openSQLite opens (creating if needed) the SQLite file at path, with its
// directory, and brings its schema up to date.
func openSQLite(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("open database: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open database: create directory: %w", err)
		}
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	w, err := openPool(dsn(path, busy, true))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// A single writer connection: SQLite allows one writer at a time anyway,
	// and a pool of writers would only trade Go-side queuing for SQLITE_BUSY.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)

	r := w
	if !opts.OneConnection {
		if r, err = openPool(dsn(path, busy, false)); err != nil {
			w.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		r.SetMaxOpenConns(4)
		r.SetMaxIdleConns(4)
	}
	db := &DB{Write: w, Read: r, Path: path, Dialect: SQLite}
	lock := &processLock{path: path + ".lock", wait: busy}
	defer lock.release()
	var readerUp chan error
	switch {
	case isNew(path):
		if err := lock.take(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
	case !opts.OneConnection:
		// A connection reads the whole schema as it opens. The reader's
		// opens beside the writer's work below instead of at the first
		// read, after it.
		readerUp = make(chan error, 1)
		go func() { readerUp <- r.PingContext(ctx) }()
	}
	err = db.checkWAL(ctx)
	if err == nil {
		err = migrate(ctx, w.DB, lock)
	}
	if readerUp != nil {
		if perr := <-readerUp; err == nil && perr != nil {
			err = fmt.Errorf("open database %s: %w", path, Classify(perr))
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openPool opens a connection pool whose connections keep their
// statements prepared (see stmtcache.go).
func openPool(dsn string) (*sqlx.DB, error) {
	c, err := newCachingConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sqlx.NewDb(sql.OpenDB(c), "sqlite"), nil
}

// readerMmap is how much of the database file a reader connection maps
// (PRAGMA mmap_size): 1 GiB, a run of some 170,000 generated iterations
// (100,000 take 600 MB); past it the rest is read as before.
const readerMmap = 1 << 30

// dsn builds the modernc.org/sqlite DSN. Pragmas go in the DSN so that every
// connection the pool opens gets them, not just the first.
// See https://www.sqlite.org/pragma.html and https://www.sqlite.org/wal.html.
func dsn(path string, busy time.Duration, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	// NORMAL is durable against a crash of the process in WAL mode; only a
	// power loss can roll back the last commits. FULL would fsync every commit.
	q.Add("_pragma", "synchronous(NORMAL)")
	// A statement that may fail half way inside a transaction (a
	// many-row INSERT, a foreign key) keeps a statement journal, in a
	// temporary file by default: in memory it costs no writes.
	q.Add("_pragma", "temp_store(MEMORY)")
	if writer {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction that
		// reads then writes cannot fail half way with SQLITE_BUSY_SNAPSHOT when
		// another process wrote in between; it waits on busy_timeout instead.
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
		// Readers map the file rather than read it a page at a time: a
		// question to memory reads thousands of rows spread over a long
		// run, and on a 600 MB database of 100,000 iterations a fill
		// spent a seventh of its time in pread. Mapped pages are shared
		// with the OS's page cache, so this costs no memory of the
		// process's own. The WAL is still read with pread; the writer,
		// whose pages change, keeps the default.
		q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", readerMmap))
	}
	return "file:" + escapePath(path) + "?" + q.Encode()
}

func escapePath(p string) string {
	// '?' and '#' would end the path part of the URI.
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// checkWAL verifies that SQLite really switched to WAL: some file systems
// (network mounts) refuse it, and then concurrent readers would block writers.
func (db *DB) checkWAL(ctx context.Context) error {
	var mode string
	if err := db.Write.GetContext(ctx, &mode, "PRAGMA journal_mode"); err != nil {
		return fmt.Errorf("open database %s: %w", db.Path, Classify(err))
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open database %s: journal mode is %q, want wal (is the file on a network file system?)", db.Path, mode)
	}
	return nil
}

// walKeepMax bounds the WAL that Leave leaves to the next process, which
// reads all of it to recover it. Checkpoints keep the WAL near
// wal_autocheckpoint pages (1000, 4 MiB); a larger one comes from a long
// first import, and is checkpointed by Close instead.
const walKeepMax = 8 << 20

// Leave is Close for a process that exits when it returns: it leaves the
// connections for the exit to drop, unless the WAL is past walKeepMax.
//
// When the last connection to a database closes, SQLite checkpoints the
// WAL into the database file and deletes it: two fsyncs, and two more when
// the next process creates the WAL again, 5 to 50 ms each on a busy disk,
// paid by every short command such as `delta memory sync`. A process that
// exits with the database open leaves the WAL as it is, as if it had
// crashed, which SQLite is built for: the next process to open the
// database rebuilds the WAL index from the WAL and sees every committed
// transaction (https://www.sqlite.org/wal.html). A process crash loses
// nothing: a commit is in the WAL when it returns. A power loss can roll
// back the commits made since the last checkpoint, as synchronous=NORMAL
// allows (after Close, those of the last process only); the database
// stays consistent, and what sync wrote is imported again from the
// journal. The WAL does not grow without bound: a commit that finds it
// past wal_autocheckpoint pages (1000) checkpoints it, and the next write
// starts it over.
//
// Only a process about to exit may call Leave; a long-lived one would keep
// every left connection open.
func (db *DB) Leave() error {
	if db.Dialect != SQLite {
		return db.Close()
	}
	st, err := os.Stat(db.Path + "-wal")
	if err != nil || st.Size() > walKeepMax {
		return db.Close()
	}
	return nil
}

// lockFile takes the lock file beside the database (path + ".lock"), which
// a SQLite workspace's syncs and imports take in turn, whatever the run. It
// waits up to wait, then fails with ErrLocked.
func (db *DB) lockFile(ctx context.Context, wait time.Duration) (*Lock, error) {
	l, err := lockfile.Acquire(ctx, db.Path+".lock", wait)
	if errors.Is(err, lockfile.ErrTimeout) {
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if err != nil {
		return nil, err
	}
	return &Lock{file: l}, nil
}
