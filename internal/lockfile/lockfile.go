// Package lockfile serialises whole operations across processes with an
// advisory lock on a file beside the database, for work that spans more
// than one SQLite transaction and the bleve index (a sync: import, folds,
// index, recalls, window).
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrTimeout is returned (wrapped) when another process held the lock for
// longer than the wait allowed.
var ErrTimeout = errors.New("lock held by another process")

// pollEvery is how often a waiting Acquire tries the lock again.
const pollEvery = 5 * time.Millisecond

// Lock is a held lock; Release lets the next process in.
type Lock struct {
	f *os.File
}

// Acquire takes the exclusive lock on path, creating the file, waiting up to
// wait for a process that holds it. The lock is released by Release, or by
// the operating system when the process ends, so a crash never leaves it
// stuck.
func Acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s (waited %s)", ErrTimeout, path, wait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// Release unlocks and closes the lock file. It is safe to call on nil.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
