package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// Sentinel errors. Wrapped errors carry the detail; match with errors.Is.
var (
	// ErrRunNotFound means the named run is not in the database.
	ErrRunNotFound = errors.New("run not found")
	// ErrNoRuns means the database holds no run yet.
	ErrNoRuns = errors.New("no runs in the database")
	// ErrIterationNotFound means an iteration number is outside the run.
	ErrIterationNotFound = errors.New("iteration not found")
	// ErrSeqOrder means events were appended with a seq that does not increase.
	ErrSeqOrder = errors.New("seq must increase")
	// ErrJournalReplaced means a journal file does not continue the run
	// stored from it: it was rotated, truncated or replaced.
	ErrJournalReplaced = errors.New("the journal does not continue the stored run")
)

// RangeError reports an iteration request outside a run's real range.
// It unwraps to ErrIterationNotFound.
type RangeError struct {
	Run        string
	From, To   int
	Iterations int
}

// Error names the range asked for and the run's.
func (e *RangeError) Error() string {
	want := fmt.Sprintf("iteration %d", e.From)
	if e.To != e.From {
		want = fmt.Sprintf("iterations %d-%d", e.From, e.To)
	}
	if e.Iterations == 0 {
		return fmt.Sprintf("%s: run %s has no iterations yet", want, e.Run)
	}
	return fmt.Sprintf("%s: run %s has iterations 1-%d", want, e.Run, e.Iterations)
}

// Unwrap lets errors.Is match ErrIterationNotFound.
func (e *RangeError) Unwrap() error { return ErrIterationNotFound }

// Store keeps runs, events and iterations in SQLite. It is safe for
// concurrent use; writes go through the database's single writer connection
// and several Stores (or processes) may share one file.
type Store struct {
	db     *sqldb.DB
	writes *sqldb.Stmts
	reads  *sqldb.Stmts
	open   openCache
}

// NewStore returns a Store on an open database.
func NewStore(db *sqldb.DB) *Store {
	return &Store{db: db, writes: sqldb.NewStmts(db.Write), reads: sqldb.NewStmts(db.Read)}
}

// Open opens the database at path, creating it and its directory if needed,
// and returns a Store that owns it. Close the Store when done.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		return nil, err
	}
	return NewStore(db), nil
}

// DB returns the underlying database, for packages that keep their own tables
// beside the journal.
func (s *Store) DB() *sqldb.DB { return s.db }

// Close releases the Store's prepared statements and closes the database.
// A Store made with NewStore should be closed by whoever opened the
// database; call Release instead to drop only the statements.
func (s *Store) Close() error {
	s.Release()
	return s.db.Close()
}

// Release drops the Store's prepared statements, leaving the database open.
func (s *Store) Release() {
	s.writes.Close()
	s.reads.Close()
}

// writeTx is a write transaction plus what to do once it has committed.
type writeTx struct {
	*sqlx.Tx
	afterCommit []func()
}

// update runs fn in one write transaction: committed if fn returns nil,
// rolled back otherwise. The afterCommit hooks fn registers run only after a
// successful commit.
func (s *Store) update(ctx context.Context, run string, fn func(tx *writeTx) error) error {
	if err := s.writes.Warm(ctx, writeSQL); err != nil {
		return err
	}
	var wtx *writeTx
	if err := s.db.Update(ctx, run, func(tx *sqlx.Tx) error {
		wtx = &writeTx{Tx: tx}
		return fn(wtx)
	}); err != nil {
		return err
	}
	for _, f := range wtx.afterCommit {
		f()
	}
	return nil
}

// TimeText formats a timestamp for storage: RFC 3339 in UTC, or "" if zero.
func TimeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTimeText is the inverse of TimeText. Stored text is ours, so a parse
// failure yields the zero time rather than an error.
func ParseTimeText(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
