package sqldb

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"

	"modernc.org/sqlite"
)

// maxCachedStmts bounds the statements one connection keeps prepared. The
// engine's queries are a few dozen fixed strings; queries built with a
// variable number of placeholders beyond the bound are prepared each time.
const maxCachedStmts = 128

// The statement cache exists because SQLite compiles a statement on every
// prepare, and database/sql prepares again for every Query and Exec that
// is not an explicit Prepare: in a short process such as `delta memory
// sync`, compiling the same few dozen statements was about a tenth of the
// CPU. https://www.sqlite.org/c3ref/prepare.html

// cachingConnector opens modernc.org/sqlite connections that keep their
// statements prepared.
type cachingConnector struct {
	base driver.Connector
}

func newCachingConnector(dsn string) (driver.Connector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConnector{base: base}, nil
}

// Connect opens a connection with an empty statement cache.
func (c *cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

// Driver returns the underlying driver.
func (c *cachingConnector) Driver() driver.Driver { return c.base.Driver() }

// cachedStmt is a prepared statement and whether rows still read from it.
type cachedStmt struct {
	stmt  driver.Stmt
	inUse bool
}

// cachingConn runs Exec and Query through statements it keeps prepared,
// one per query text. A statement whose rows are still open is not shared:
// the same query then runs on a statement of its own, as without the cache.
type cachingConn struct {
	driver.Conn
	mu    sync.Mutex
	stmts map[string]*cachedStmt
}

var (
	_ driver.ExecerContext      = (*cachingConn)(nil)
	_ driver.QueryerContext     = (*cachingConn)(nil)
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
	_ driver.SessionResetter    = (*cachingConn)(nil)
	_ driver.Validator          = (*cachingConn)(nil)
	_ driver.Pinger             = (*cachingConn)(nil)
)

// cacheable leaves scripts (several statements) to the driver, which runs
// them one statement at a time.
func cacheable(query string) bool {
	q := strings.TrimSpace(query)
	q = strings.TrimSuffix(q, ";")
	return !strings.Contains(q, ";")
}

// take returns the cached statement for query, preparing it if needed, and
// marks it in use; nil when it cannot be shared now.
func (c *cachingConn) take(ctx context.Context, query string) (*cachedStmt, error) {
	if !cacheable(query) {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs, ok := c.stmts[query]; ok {
		if cs.inUse {
			return nil, nil
		}
		cs.inUse = true
		return cs, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{stmt: st, inUse: true}
	c.stmts[query] = cs
	return cs, nil
}

// give returns a statement to the cache; a failed one is dropped, so that
// no state of a failure is carried into the next use.
func (c *cachingConn) give(query string, cs *cachedStmt, failed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.inUse = false
	if failed {
		delete(c.stmts, query)
		cs.stmt.Close()
	}
}

// ExecContext runs query through its cached statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	res, err := cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	c.give(query, cs, err != nil)
	return res, err
}

// QueryContext runs query through its cached statement, which stays in use
// until the rows are closed.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		c.give(query, cs, true)
		return nil, err
	}
	return &cachedRows{Rows: rows, release: func(failed bool) { c.give(query, cs, failed) }}, nil
}

// PrepareContext prepares an explicit statement, outside the cache.
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

// BeginTx starts a transaction on the connection.
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// ResetSession is called before the pool reuses the connection.
func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid reports whether the pool may reuse the connection.
func (c *cachingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// Ping checks the connection.
func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *cachingConn) Close() error {
	c.mu.Lock()
	var errs []error
	for q, cs := range c.stmts {
		errs = append(errs, cs.stmt.Close())
		delete(c.stmts, q)
	}
	c.mu.Unlock()
	return errors.Join(append(errs, c.Conn.Close())...)
}

// cachedRows gives its statement back to the cache when closed.
type cachedRows struct {
	driver.Rows
	release func(failed bool)
	done    bool
}

// Close closes the rows (which resets the statement) and releases it.
func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	if !r.done {
		r.done = true
		r.release(err != nil)
	}
	return err
}

// ColumnTypeDatabaseTypeName forwards to the driver's rows.
func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

// ColumnTypeNullable forwards to the driver's rows.
func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}
