package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/lockfile"
)

// advisoryLocks takes, in an open transaction, the transaction-scoped
// advisory locks of run within one family of locks (scope): the run's own
// and, shared, the whole database's; or with run "" the whole database's
// alone, which waits for every run's holder and keeps them all waiting.
// Each family's keys are hashes of names of its own. The SQL is
// PostgreSQL's own: LockRun's connection does not go through rewrite.go.
func advisoryLocks(ctx context.Context, tx sqlx.ExecerContext, scope, run string) error {
	if run == "" {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, scope)
		return err
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0)),
		pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))`, scope, run)
	return err
}

// The families of advisory locks: a run's writes (DB.Update), and its syncs
// and imports (LockRun). They are apart because a sync holds its run's
// LockRun on one connection while it writes on another.
const (
	writeScope = "delta-memory write"
	runScope   = "delta-memory run"
)

// writeLocks takes the locks of a write of run (DB.Update).
func writeLocks(ctx context.Context, tx *sqlx.Tx, run string) error {
	if err := advisoryLocks(ctx, tx, writeScope, run); err != nil {
		return fmt.Errorf("wait for the write lock of %s: %w", orDatabase(run), Classify(err))
	}
	return nil
}

// orDatabase names what a lock of run covers.
func orDatabase(run string) string {
	if run == "" {
		return "the database"
	}
	return "run " + run
}

// openPostgres connects to the PostgreSQL database dsn names and brings
// its schema up to date. Nothing SQLite needs applies here: no pragmas, no
// WAL, no lock file; the writer pool keeps one connection so that this
// process's writes keep the order they have on SQLite.
func openPostgres(ctx context.Context, dsn string, opts Options) (*DB, error) {
	name := Redact(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", name, err)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	// A write waits this long for another's lock, as SQLite's busy_timeout.
	cfg.RuntimeParams["lock_timeout"] = fmt.Sprint(busy.Milliseconds())
	// A worker whose host freezes or drops off the network leaves its
	// session, and the locks it holds, to the server until the server
	// notices: over TCP it asks after a minute of silence, and gives up
	// after six more unanswered (Unix sockets ignore these).
	cfg.RuntimeParams["tcp_keepalives_idle"] = "60"
	cfg.RuntimeParams["tcp_keepalives_interval"] = "10"
	cfg.RuntimeParams["tcp_keepalives_count"] = "6"
	pool := func(conns int, readOnly bool) *sqlx.DB {
		c := cfg.Copy()
		if readOnly {
			// As SQLite's query_only: a write through Read is a bug.
			c.RuntimeParams["default_transaction_read_only"] = "on"
		}
		db := sql.OpenDB(&pgConnector{base: stdlib.GetConnector(*c)})
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		return sqlx.NewDb(db, "pgx")
	}
	db := &DB{Write: pool(1, false), Path: name, Dialect: Postgres}
	db.Read = db.Write
	if !opts.OneConnection {
		db.Read = pool(4, true)
	}
	// goose binds Go booleans to its own boolean column: it gets pgx as it
	// is. The run locks are held on it too (LockRun), each in a
	// transaction left idle for a sync's length: one idle for ten minutes
	// belongs to a worker that is gone, and the server ends it.
	plain := cfg.Copy()
	plain.RuntimeParams["idle_in_transaction_session_timeout"] = "600000"
	db.plain = stdlib.OpenDB(*plain)
	db.plain.SetMaxIdleConns(1)
	if err := db.Write.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w (is the server up, and the URL right? postgres://user:password@host:5432/dbname)", name, err)
	}
	if err := migratePostgres(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Redact returns a --db value fit for a message: a PostgreSQL URL without
// its password, a SQLite path as it is.
func Redact(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		for _, k := range []string{"password", "sslpassword"} {
			if q.Has(k) {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// pgConnector opens pgx connections that take the stores' SQL (rewrite.go).
type pgConnector struct{ base driver.Connector }

// Connect opens a connection.
func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: conn}, nil
}

// Driver returns pgx's driver.
func (c *pgConnector) Driver() driver.Driver { return c.base.Driver() }

// pgConn translates each query before pgx sees it, and passes Go booleans
// as the integers the schema stores them as (SQLite has no booleans).
// pgx keeps each query's statement prepared on the connection itself.
type pgConn struct {
	driver.Conn
}

var (
	_ driver.ExecerContext      = (*pgConn)(nil)
	_ driver.QueryerContext     = (*pgConn)(nil)
	_ driver.ConnBeginTx        = (*pgConn)(nil)
	_ driver.ConnPrepareContext = (*pgConn)(nil)
	_ driver.SessionResetter    = (*pgConn)(nil)
	_ driver.Pinger             = (*pgConn)(nil)
	_ driver.NamedValueChecker  = (*pgConn)(nil)
)

func (c *pgConn) base() *stdlib.Conn { return c.Conn.(*stdlib.Conn) }

// Prepare prepares a translated statement.
func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.base().Prepare(toPostgres(query))
}

// PrepareContext prepares a translated statement.
func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.base().PrepareContext(ctx, toPostgres(query))
}

// ExecContext runs a translated statement.
func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.base().ExecContext(ctx, toPostgres(query), args)
}

// QueryContext runs a translated query.
func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.base().QueryContext(ctx, toPostgres(query), args)
}

// BeginTx starts a transaction.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.base().BeginTx(ctx, opts)
}

// ResetSession is called before the pool reuses the connection.
func (c *pgConn) ResetSession(ctx context.Context) error { return c.base().ResetSession(ctx) }

// Ping checks the connection.
func (c *pgConn) Ping(ctx context.Context) error { return c.base().Ping(ctx) }

// CheckNamedValue turns a bool into 0 or 1, as SQLite's driver does, and
// makes a string one PostgreSQL's text takes: a NUL byte, which SQLite
// keeps and PostgreSQL refuses, becomes U+FFFD, as do bytes that are not
// UTF-8. The journal's raw events are bytes (BYTEA) and keep both; only
// what is derived from them as text changes.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case bool:
		nv.Value = int64(0)
		if v {
			nv.Value = int64(1)
		}
		return nil
	case string:
		if strings.IndexByte(v, 0) >= 0 || !utf8.ValidString(v) {
			nv.Value = strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", "\uFFFD")
		}
	}
	return c.base().CheckNamedValue(nv)
}

// Lock is a lock LockRun took; Release lets the next holder in.
type Lock struct {
	// PostgreSQL's: the transaction that holds the advisory lock, on a
	// connection of its own.
	tx   *sql.Tx
	conn *sql.Conn
	// SQLite's: the lock file.
	file *lockfile.Lock
}

// Release ends the lock's transaction, which releases it, and gives its
// connection back; or unlocks the file. It may be called more than once.
func (l *Lock) Release() {
	if l == nil {
		return
	}
	if l.file != nil {
		l.file.Release()
		l.file = nil
	}
	if l.conn != nil {
		l.tx.Rollback()
		l.conn.Close()
		l.tx, l.conn = nil, nil
	}
}

// LockRun takes the lock of one run's syncs and imports, held until
// Release. On SQLite it is the lock file beside the database, whatever the
// run (sqlite.go). On PostgreSQL syncs and imports of one run take turns;
// those of different runs do not wait for each other. With run "" it locks the whole database (an import whose run
// is not known before it reads the file), waiting for every run's holder
// and keeping every run waiting. It is a transaction-scoped advisory lock
// on a connection of its own: a worker that dies drops the connection,
// and the server releases the lock. It waits up to wait, then fails with
// ErrLocked.
func (db *DB) LockRun(ctx context.Context, run string, wait time.Duration) (*Lock, error) {
	if db.Dialect == SQLite {
		return db.lockFile(ctx, wait)
	}
	conn, err := db.plain.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", run, Classify(err))
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lock run %s: %w", run, Classify(err))
	}
	l := &Lock{tx: tx, conn: conn}
	_, err = tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", max(wait.Milliseconds(), 1)))
	if err == nil {
		err = advisoryLocks(ctx, tx, runScope, run)
	}
	if err != nil {
		l.Release()
		return nil, fmt.Errorf("lock %s (another sync or import holds it): %w", orDatabase(run), Classify(err))
	}
	return l, nil
}

// ServerKey names the database a PostgreSQL URL reaches, for telling two
// spellings of one apart: its hosts and ports (or Unix socket directory)
// and database name, as pgx resolves them with its defaults. It returns ""
// for a URL pgx cannot read.
func ServerKey(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}
