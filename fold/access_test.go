package fold_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// TestInFullMatchesTheNotes checks InFull, which sums visible blocks, against
// its definition over the notes: the iterations of a range that no block
// covers, or that have no note yet. The run has chapters and phases, an
// unfolded block in the middle, and iterations past the noted ones.
func TestInFullMatchesTheNotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, gen := testrun.Build(t, testrun.Options{Iterations: 500, Extra: 20, MaxOutputBytes: 2000, Budget: 8000, Seed: 3})
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := eng.Fold.VisibleBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var top int
	for i, b := range blocks {
		if b.Level > blocks[top].Level {
			top = i
		}
	}
	if blocks[top].Level < 3 {
		t.Fatalf("no chapter among %d visible blocks; the test needs deeper folds", len(blocks))
	}
	if _, err := eng.Folder.Unfold(ctx, run, blocks[top].ID); err != nil {
		t.Fatal(err)
	}
	// Iterations the scheduler has not noted yet show in full.
	var more []journal.Event
	for range 20 {
		ev, _ := gen.Next()
		more = append(more, ev...)
	}
	if _, err := eng.Journal.Append(ctx, run.ID, journal.FormatDelta, more); err != nil {
		t.Fatal(err)
	}
	if run, err = eng.Journal.Run(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	notes, err := eng.Fold.Notes(ctx, run.ID, 1, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	folded := make([]bool, run.Iterations+1)
	for _, n := range notes {
		folded[n.Number] = n.Block != ""
	}
	for first := 1; first <= run.Iterations; first += 13 {
		for last := first; last <= run.Iterations; last += 37 {
			want := 0
			for n := first; n <= last; n++ {
				if !folded[n] {
					want++
				}
			}
			got, err := eng.Fold.InFull(ctx, run.ID, first, last)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("InFull(%d, %d) = %d, the notes say %d", first, last, got, want)
			}
		}
	}
	// LinesAt, which a recall reads the same definition through (a line
	// with no block shows in full), for scattered numbers, the unnoted
	// ones left out.
	var numbers []int
	for n := 1; n <= run.Iterations; n += 11 {
		numbers = append(numbers, n)
	}
	lines, err := eng.Fold.LinesAt(ctx, run.ID, numbers)
	if err != nil {
		t.Fatal(err)
	}
	byNumber := map[int]int{}
	for i, n := range notes {
		byNumber[n.Number] = i
	}
	want := 0
	for _, n := range numbers {
		if _, ok := byNumber[n]; ok {
			want++
		}
	}
	if len(lines) != want || want == len(numbers) {
		t.Fatalf("LinesAt read %d lines of %d numbers, want the %d noted (the test needs some not noted)", len(lines), len(numbers), want)
	}
	for _, l := range lines {
		n := notes[byNumber[l.Number]]
		if l.Block != n.Block || l.L0Tokens != n.L0Tokens || l.L1 != n.L1 || (l.Block == "") != !folded[l.Number] {
			t.Fatalf("LinesAt: iteration %d reads block %q, %d tokens in full, line %q; its note says %q, %d, %q", l.Number, l.Block, l.L0Tokens, l.L1, n.Block, n.L0Tokens, n.L1)
		}
	}
	// SizesAt reads the same iterations' sizes and covers, without their
	// lines.
	sizes, err := eng.Fold.SizesAt(ctx, run.ID, numbers)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != len(lines) {
		t.Fatalf("SizesAt read %d iterations, LinesAt %d", len(sizes), len(lines))
	}
	covered := 0
	for i, z := range sizes {
		l := lines[i]
		if z.Number != l.Number || z.L0Tokens != l.L0Tokens || z.Folded != (l.Block != "") {
			t.Fatalf("SizesAt: iteration %d reads %d tokens in full, folded %v; its line says iteration %d, %d tokens, block %q", z.Number, z.L0Tokens, z.Folded, l.Number, l.L0Tokens, l.Block)
		}
		if z.Folded {
			covered++
		}
	}
	if covered == 0 || covered == len(sizes) {
		t.Fatalf("%d of %d iterations read are covered: the test needs both", covered, len(sizes))
	}
}
