package journal_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// TestFirstFrom finds, by halving, the first iteration that started at or
// after a time: each iteration from its own start, the next from just
// after it, none from after the last.
func TestFirstFrom(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, path, smallJournal(), true)
	mustImport(t, s, path, journal.ImportOptions{RunID: "run-1"})
	ctx := context.Background()
	run, err := s.Run(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if run.Iterations < 2 {
		t.Fatalf("set-up: %d iterations", run.Iterations)
	}
	for n := 1; n <= run.Iterations; n++ {
		at, err := s.StartedAt(ctx, "run-1", n)
		if err != nil || at.IsZero() {
			t.Fatalf("iteration %d started at %v, %v", n, at, err)
		}
		for _, c := range []struct {
			t    time.Time
			want int
		}{{at, n}, {at.Add(time.Millisecond), n + 1}} {
			if got, err := s.FirstFrom(ctx, "run-1", c.t, run.Iterations); err != nil || got != c.want {
				t.Errorf("first from %s = %d, %v; want %d", c.t, got, err, c.want)
			}
		}
	}
	if got, err := s.FirstFrom(ctx, "run-1", time.Time{}, run.Iterations); err != nil || got != 1 {
		t.Errorf("first from the zero time = %d, %v; want 1", got, err)
	}
	if at, err := s.StartedAt(ctx, "run-1", run.Iterations+5); err != nil || !at.IsZero() {
		t.Errorf("an iteration past the run started at %v, %v; want the zero time", at, err)
	}
}
