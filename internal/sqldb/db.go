// Package sqldb opens the delta-memory database. A file path is SQLite,
// the embedded default: pragmas in the DSN, one writer connection beside a
// pool of readers, a lock file beside it (sqlite.go). A postgres:// or
// postgresql:// URL is PostgreSQL, for a fleet of workers on one database
// (postgres.go). Either way the dialect's embedded goose migrations are
// applied on open. The stores write SQLite's SQL, kept to what PostgreSQL
// also understands but for placeholders and index hints, which the
// PostgreSQL adapter translates (rewrite.go).
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// DefaultBusyTimeout is how long a connection waits for another process's
// write lock before failing with SQLITE_BUSY.
const DefaultBusyTimeout = 10 * time.Second

// ErrLocked is returned (wrapped) when the database stayed locked by another
// writer for longer than the busy timeout.
var ErrLocked = errors.New("database is locked by another writer")

// Dialect names the database a DB speaks.
type Dialect string

// The dialects Open knows.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open delta-memory database. Write has exactly one connection, so
// writes in this process are serialised without SQLITE_BUSY between them;
// Read is a small pool for queries that can run beside a write (WAL mode).
type DB struct {
	Write *sqlx.DB
	Read  *sqlx.DB
	// Path is the SQLite file, or the PostgreSQL URL without its password:
	// what messages name.
	Path    string
	Dialect Dialect
	// plain is PostgreSQL's pool without the stores' translation, for
	// goose; nil on SQLite.
	plain *sql.DB
}

// IsPostgres reports whether target, a --db value, names a PostgreSQL
// database (a postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(target string) bool {
	t := strings.ToLower(strings.TrimSpace(target))
	return strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://")
}

// Open opens the database target names, creating it if needed, and brings
// its schema up to date: a SQLite file (sqlite.go), or a PostgreSQL URL
// (postgres.go). It returns ErrSchemaTooNew when the schema was written by
// a newer delta-memory.
func Open(ctx context.Context, target string, opts Options) (*DB, error) {
	if strings.TrimSpace(target) == "" {
		return nil, errors.New("open database: empty path")
	}
	if IsPostgres(target) {
		return openPostgres(ctx, target, opts)
	}
	return openSQLite(ctx, target, opts)
}

// Cached returns the Read pool for hot reads. Every connection of both
// pools keeps its statements prepared (stmtcache.go), so this is Read
// itself; it names the reads that rely on that.
func (db *DB) Cached() sqlx.QueryerContext { return db.Read }

// Options tunes Open. The zero value is the default.
type Options struct {
	// BusyTimeout overrides DefaultBusyTimeout: how long a write waits for
	// another's lock (SQLite's busy_timeout, PostgreSQL's lock_timeout).
	BusyTimeout time.Duration
	// OneConnection makes Read the writer's pool: one connection for
	// everything. It is for a short process with one flow of work, such as
	// `delta memory sync`: a connection reads and parses the whole schema
	// as it opens, and the reader's was a tenth of a sync. Reads then wait
	// while a write transaction is open, so the caller must not read
	// through Read inside Update, nor query while iterating rows; reads
	// lose the reader's query_only guard. On PostgreSQL it saves a
	// connection, each a server process to start.
	OneConnection bool
}

// Close closes both pools.
func (db *DB) Close() error {
	var errs []error
	if db.Read != nil && db.Read != db.Write {
		errs = append(errs, db.Read.Close())
	}
	if db.Write != nil {
		errs = append(errs, db.Write.Close())
	}
	if db.plain != nil {
		errs = append(errs, db.plain.Close())
	}
	return errors.Join(errs...)
}

// Update runs fn in one write transaction on the writer connection:
// committed if fn returns nil, rolled back otherwise. Busy and locked
// errors from BEGIN and COMMIT come back wrapping ErrLocked.
//
// run names the run fn writes, "" when it writes none or may write any.
// Write transactions of one run take turns across processes on both
// backends, so that a read-then-write inside fn sees no other writer's
// rows of the run appear between them: SQLite's BEGIN IMMEDIATE takes the
// file's write lock (every write waits for every other), and on PostgreSQL
// the transaction first takes the run's advisory lock (writeLocks), so
// that writes of different runs go on side by side; a write of "" waits
// for them all, and they for it.
func (db *DB) Update(ctx context.Context, run string, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.Write.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", Classify(err))
	}
	defer tx.Rollback()
	if db.Dialect == Postgres {
		if err := writeLocks(ctx, tx, run); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", Classify(err))
	}
	return nil
}

// Classify wraps busy and locked errors in ErrLocked so callers can give
// the user a useful message: SQLite's, and PostgreSQL's lock timeout,
// serialization failure and deadlock. Other errors pass through unchanged.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "55P03" || pe.Code == "40001" || pe.Code == "40P01") {
		return fmt.Errorf("%w: %v", ErrLocked, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") {
		return fmt.Errorf("%w: %v", ErrLocked, err)
	}
	return err
}

// Snapshot begins a read-only transaction that sees the database as it is
// now, whatever is written after: SQLite's read transaction in WAL mode,
// PostgreSQL's REPEATABLE READ. The caller rolls it back when done. On
// SQLite it begins deferred even on a connection that writes (BEGIN
// IMMEDIATE there), so that it takes no write lock and waits for none.
func (db *DB) Snapshot(ctx context.Context) (*sqlx.Tx, error) {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.Dialect == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	tx, err := db.Read.BeginTxx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("begin a read snapshot: %w", Classify(err))
	}
	return tx, nil
}
