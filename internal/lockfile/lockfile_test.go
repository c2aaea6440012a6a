package lockfile

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestSecondHolderWaitsThenTimesOut(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.lock")
	ctx := context.Background()
	first, err := Acquire(ctx, path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file description, so a second open in
	// the same process contends like another process would.
	if _, err := Acquire(ctx, path, 20*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("second Acquire while held: got %v, want ErrTimeout", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(ctx, path, 20*time.Millisecond)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	if err := second.Release(); err != nil {
		t.Fatal(err)
	}
	if err := second.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
}

func TestWaiterGetsTheLockWhenReleased(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.lock")
	ctx := context.Background()
	first, err := Acquire(ctx, path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := Acquire(ctx, path, 10*time.Second)
		if err == nil {
			err = l.Release()
		}
		got <- err
	}()
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

func TestCancelStopsTheWait(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.lock")
	first, err := Acquire(context.Background(), path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
