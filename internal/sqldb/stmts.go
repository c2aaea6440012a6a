package sqldb

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Stmts keeps statements prepared on a pool, keyed by their SQL.
// database/sql prepares a query again on every call otherwise, and SQLite's
// parser was a third of an append's time and a sixth of a recall's. A
// pool-level statement is prepared once per connection and reused; InTx
// reuses it inside a transaction on the same connection. Only queries from
// a fixed set of SQL texts belong here: the cache keeps every text it sees.
type Stmts struct {
	mu sync.Mutex
	db *sqlx.DB
	m  map[string]*sqlx.Stmt
}

// NewStmts returns an empty cache over the pool db.
func NewStmts(db *sqlx.DB) *Stmts { return &Stmts{db: db} }

// Prepared returns the statement for query, preparing it on first use.
func (c *Stmts) Prepared(ctx context.Context, query string) (*sqlx.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := c.db.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", Classify(err))
	}
	if c.m == nil {
		c.m = map[string]*sqlx.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

// Warm prepares queries ahead of a transaction. It must run before BeginTx
// on the writer pool: that pool has one connection, which an open
// transaction holds, so preparing on the pool inside it would wait forever.
func (c *Stmts) Warm(ctx context.Context, queries []string) error {
	for _, q := range queries {
		if _, err := c.Prepared(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// InTx returns the statement for query bound to tx: the cached one when
// Warm prepared it, else one prepared on the transaction itself.
func (c *Stmts) InTx(ctx context.Context, tx *sqlx.Tx, query string) (*sqlx.Stmt, error) {
	c.mu.Lock()
	st, ok := c.m[query]
	c.mu.Unlock()
	if ok {
		return tx.StmtxContext(ctx, st), nil
	}
	st, err := tx.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", Classify(err))
	}
	return st, nil
}

// Close releases every prepared statement.
func (c *Stmts) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
