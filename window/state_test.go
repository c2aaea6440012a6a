package window_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// TestRunStateStaysPutBetweenFolds replays a generated run as sync does,
// the 5 newest iterations left to the caller, and checks at every call
// that once the run has folded into a chapter, its errors and files are
// shown as of the newest iteration the summaries laid out before the
// timeline cover (the blocks made up to the newest chapter or cascade), in
// the State partition between Short-term and Working, and that State does
// not change between two calls unless a chapter or cascade came between
// them: it stays in the prefix a prompt cache keeps. Before the first the
// state is in Dynamic, as of the newest iteration.
func TestRunStateStaysPutBetweenFolds(t *testing.T) {
	t.Parallel()
	var prev []window.Section
	same := func(a, b []window.Section) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }
	shown, moved, steady := 0, 0, 0
	replaySync(t, 21, func(i int, up memory.Step, cx *window.Context, blocks []*fold.Block) {
		laidOut := laidOutAt(blocks)
		folded := 0
		for _, b := range blocks {
			if b.CreatedIter <= laidOut {
				folded = max(folded, b.Last)
			}
		}
		relaid := false
		for _, f := range up.Fold.Folds {
			relaid = relaid || f.Level >= fold.L3
		}
		state := cx.Partitions[3]
		if state.Name != window.State {
			t.Fatalf("iteration %d: partition 3 is %s", i, state.Name)
		}
		for _, s := range cx.Partitions[6].Sections {
			if folded > 0 && (strings.HasPrefix(s.Name, "Unresolved errors") || strings.HasPrefix(s.Name, "Files and entities")) {
				t.Fatalf("iteration %d: %q is in Dynamic once the run has folded", i, s.Name)
			}
		}
		for _, s := range state.Sections {
			if folded == 0 || s.AsOf != folded || !strings.HasSuffix(s.Name, fmt.Sprintf(" (as of iteration %d)", folded)) {
				t.Fatalf("iteration %d: State section %q as of %d, newest folded iteration %d", i, s.Name, s.AsOf, folded)
			}
		}
		if len(state.Sections) > 0 {
			shown++
			md := cx.Markdown()
			at := strings.Index(md, "## Run state as of the summaries\n")
			if at < 0 || strings.Contains(md[at:], "## Short-term memory\n") || strings.Contains(md[at:], "## Long-term memory\n") ||
				strings.Contains(md[:at], "## Working memory\n") {
				t.Fatalf("iteration %d: the State partition is not between the summaries and Working:\n%s", i, md)
			}
		}
		switch {
		case relaid:
			if !same(prev, state.Sections) {
				moved++
			}
		case !same(prev, state.Sections):
			t.Fatalf("iteration %d: no chapter nor cascade, yet the State partition changed:\n%+v\n%+v", i, prev, state.Sections)
		case len(state.Sections) > 0:
			steady++
		}
		prev = state.Sections
	})
	t.Logf("State shown at %d calls, changed at %d chapters or cascades, kept at %d calls", shown, moved, steady)
	if shown < 100 || moved < 5 || steady < 50 {
		t.Fatalf("the run did not exercise the State partition: shown at %d calls, changed at %d chapters or cascades, kept at %d calls", shown, moved, steady)
	}
}

// replaySync replays a generated 300-iteration run (synth seed seed) into
// a fresh engine at 8,000 tokens as sync does, the 5 newest iterations
// left to the caller, and calls each after every call with the step, the
// window and the visible blocks.
func replaySync(t *testing.T, seed uint64, each func(i int, up memory.Step, cx *window.Context, blocks []*fold.Block)) {
	t.Helper()
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	gen, err := synth.New(synth.Config{Seed: seed, Iterations: 300, RunID: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; ; i++ {
		events, ok := gen.Next()
		if !ok {
			return
		}
		if _, err := eng.Journal.Append(ctx, "replay", journal.FormatDelta, events); err != nil {
			t.Fatal(err)
		}
		up, err := eng.Update(ctx, "replay")
		if err != nil {
			t.Fatal(err)
		}
		run, err := eng.Journal.Run(ctx, "replay")
		if err != nil {
			t.Fatal(err)
		}
		cx, err := eng.Context(ctx, run, memory.ContextOptions{Native: 5})
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := eng.Fold.VisibleBlocks(ctx, "replay")
		if err != nil {
			t.Fatal(err)
		}
		each(i, up, cx, blocks)
	}
}

// laidOutAt is the iteration at which the newest visible chapter or
// cascade was made (fold.Store.LayoutFold), 0 when none shows.
func laidOutAt(blocks []*fold.Block) int {
	n := 0
	for _, b := range blocks {
		if b.Level >= fold.L3 {
			n = max(n, b.CreatedIter)
		}
	}
	return n
}
