package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// addSeeds adds every file of testdata/fuzz/<dir> to the fuzz corpus.
func addSeeds(f *testing.F, dir string) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", dir, "*"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in testdata/fuzz/%s: %v", dir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParseDeltaLine checks that any line either parses into an event with a
// valid envelope or fails with an error, never a panic.
func FuzzParseDeltaLine(f *testing.F) {
	addSeeds(f, "delta")
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := journal.ParseDeltaLine(line)
		if err != nil {
			return
		}
		if e.Seq < 1 || e.Type == "" {
			t.Fatalf("accepted an event with seq %d, type %q", e.Seq, e.Type)
		}
		var payload map[string]json.RawMessage
		if json.Unmarshal(e.Payload, &payload) != nil {
			t.Fatalf("accepted a payload that is not an object: %s", e.Payload)
		}
		// Typed accessors may fail on a mismatched payload but must not panic.
		_, _ = e.Thought()
		_, _ = e.ActionResult()
	})
}

// FuzzParseOpenAI checks that whatever ParseOpenAI accepts imports with every
// tool call paired to its result: no orphan results and no calls left open
// except at the very end.
func FuzzParseOpenAI(f *testing.F) {
	addSeeds(f, "openai")
	s, err := journal.Open(context.Background(), filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := journal.ParseOpenAI("fuzz.json", data)
		if err != nil {
			return
		}
		run := fmt.Sprintf("fuzz-%d", n.Add(1))
		ctx := context.Background()
		res, err := s.ImportOpenAI(ctx, run, "fuzz.json", data)
		if len(msgs) == 0 {
			// Nothing to make a run of: refused, as an empty file is.
			if err == nil {
				t.Fatal("a transcript without messages was imported")
			}
			return
		}
		if err != nil {
			t.Fatalf("parsed but did not import: %v", err)
		}
		if res.Added != len(msgs) {
			t.Fatalf("added %d of %d messages", res.Added, len(msgs))
		}
		if res.Iterations == 0 {
			return
		}
		its, err := s.Iterations(ctx, run, 1, res.Iterations, journal.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range its {
			for _, c := range it.Calls {
				if c.Orphan {
					t.Fatalf("iteration %d has an orphan result for %q", it.Number, c.ID)
				}
			}
		}
	})
}
