package journal_test

import (
	"context"
	"maps"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// TestSaid reads what each iteration said last in words: its thought, and
// for an iteration whose thought is empty its user message; tool outputs
// are not read. It agrees with the full read of the same iterations.
func TestSaid(t *testing.T) {
	t.Parallel()
	s, run := saidRun(t)
	ctx := context.Background()
	got, err := s.Said(ctx, "run-1", 1, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: "Read the parser first.", 2: "Run the tests.", 4: "Is the fix in?"}
	if run.Iterations != 4 || !maps.Equal(got, want) {
		t.Fatalf("said %v over %d iterations, want %v over 4", got, run.Iterations, want)
	}
	its, err := s.Iterations(ctx, "run-1", 1, run.Iterations, journal.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		w := it.Thought
		if w == "" && len(it.User) > 0 {
			w = it.User[len(it.User)-1]
		}
		if got[it.Number] != w {
			t.Errorf("iteration %d: said %q, the full read says %q", it.Number, got[it.Number], w)
		}
	}
}

// saidRun imports run-1, four iterations: two that think in words, one
// that only calls a tool, and one whose user asks a question and whose
// thought is empty.
func saidRun(t *testing.T) (*journal.Store, journal.Run) {
	t.Helper()
	s, _ := openStore(t)
	lines := smallJournal()
	lines[9] = thought(10, "", "read_file:c3") // iteration 3: a call, no words
	lines = append(lines[:10], append([]string{
		line(11, "USER_MESSAGE", obj{"content": "Is the fix in?"}),
		thought(12, ""),
		line(13, "RUN_END", obj{"status": "COMPLETED"}),
	}, lines[12:]...)...)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, path, lines, true)
	mustImport(t, s, path, journal.ImportOptions{RunID: "run-1"})
	run, err := s.Run(context.Background(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	return s, run
}
