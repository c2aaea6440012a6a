package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/delta-memory/delta-memory/internal/lockfile"
	"github.com/delta-memory/delta-memory/migrations"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer delta-memory than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this delta")

// SchemaError says which versions clashed. It unwraps to ErrSchemaTooNew.
type SchemaError struct {
	DBVersion    int64
	KnownVersion int64
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this delta understands (up to %d); upgrade delta (go install github.com/delta-memory/delta-memory/cmd/delta@latest)", e.DBVersion, e.KnownVersion)
}

// Unwrap lets errors.Is match ErrSchemaTooNew.
func (e *SchemaError) Unwrap() error { return ErrSchemaTooNew }

// migrate applies the embedded migrations through a goose Provider. It
// refuses to touch a database whose version is beyond the embedded ones,
// since an older binary cannot know what a newer schema means.
//
// Two processes opening a new database at once would both apply the same
// migration, and the second would fail half way ("duplicate column"): goose
// has no lock for SQLite. So a database that needs migrating is migrated
// under the process lock (see Open); one that is up to date takes none.
func migrate(ctx context.Context, db *sql.DB, lock *processLock) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	return upTo(ctx, p, lock.take)
}

// migratePostgres applies PostgreSQL's migrations. goose takes a session
// advisory lock for them, so that workers starting at once do not both
// apply one. A database already at the newest version, as nearly always,
// costs one query, not goose's several: every sync opens the database.
func migratePostgres(ctx context.Context, db *DB) error {
	var current sql.NullInt64
	err := db.plain.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&current)
	if err == nil && current.Valid && current.Int64 == newestVersion() {
		return nil
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db.plain, migrations.Postgres(), goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if err := upTo(ctx, p, nil); err != nil {
		return fmt.Errorf("open database %s: %w", db.Path, err)
	}
	return nil
}

// upTo brings p's database to the newest embedded version, calling take
// first, if set, when there is anything to apply.
func upTo(ctx context.Context, p *goose.Provider, take func(context.Context) error) error {
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", Classify(err))
	}
	var known int64
	for _, s := range p.ListSources() {
		known = max(known, s.Version)
	}
	if current > known {
		return &SchemaError{DBVersion: current, KnownVersion: known}
	}
	if current == known {
		return nil
	}
	if take != nil {
		if err := take(ctx); err != nil {
			return fmt.Errorf("migrate database: %w", err)
		}
	}
	// Up reads the version again: another process may have migrated while
	// this one waited.
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate database: %w", Classify(err))
	}
	return nil
}

// SchemaCurrent reports whether the database is still at the schema this
// build knows, with one query: a process that keeps a shared database
// open (the resident server) asks before each use, since another worker
// of a newer build may have migrated it since.
func (db *DB) SchemaCurrent(ctx context.Context) (bool, error) {
	var current sql.NullInt64
	q := db.Write.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version`)
	if err := q.Scan(&current); err != nil {
		return false, fmt.Errorf("read schema version: %w", Classify(err))
	}
	return current.Int64 == newestVersion(), nil
}

// newestVersion is the version of the newest embedded migration, the same
// in both dialects.
func newestVersion() int64 {
	names, _ := fs.Glob(migrations.FS, "*.sql")
	var newest int64
	for _, n := range names {
		if v, err := goose.NumericComponent(n); err == nil {
			newest = max(newest, v)
		}
	}
	return newest
}

// SchemaVersion reports the version the database is migrated to.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	dialect, fsys, conn := goose.DialectSQLite3, fs.FS(migrations.FS), db.Write.DB
	if db.Dialect == Postgres {
		dialect, fsys, conn = goose.DialectPostgres, migrations.Postgres(), db.plain
	}
	p, err := goose.NewProvider(dialect, conn, fsys)
	if err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	return p.GetDBVersion(ctx)
}

// processLock is the lock file beside a database (path + ".lock", the one
// the engine takes for imports and syncs), taken at most once while a
// database is set up and released when Open is done with it.
type processLock struct {
	path string
	wait time.Duration
	held *lockfile.Lock
}

// take acquires the lock unless it is held already.
func (l *processLock) take(ctx context.Context) error {
	if l.held != nil {
		return nil
	}
	held, err := lockfile.Acquire(ctx, l.path, l.wait)
	if errors.Is(err, lockfile.ErrTimeout) {
		return fmt.Errorf("%w: %w", ErrLocked, err)
	}
	l.held = held
	return err
}

// release lets the next process in.
func (l *processLock) release() {
	l.held.Release()
	l.held = nil
}

// isNew reports whether the database file is missing or empty: creating it
// (and switching it to WAL) must not race another process doing the same.
func isNew(path string) bool {
	st, err := os.Stat(path)
	return err != nil || st.Size() == 0
}
