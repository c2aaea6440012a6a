package fold_test

import (
	"testing"

	"github.com/delta-memory/delta-memory/fold"
)

func TestParseBlockIDReadsWhatTheFolderWrote(t *testing.T) {
	for _, c := range [][4]int{{1, 1, 1, 1}, {2, 100, 199, 1}, {4, 7, 90000, 3}, {3, 0, 12, 2}} {
		id := fold.BlockID(c[0], c[1], c[2], c[3])
		level, first, last, ok := fold.ParseBlockID(id)
		if !ok || level != c[0] || first != c[1] || last != c[2] {
			t.Errorf("ParseBlockID(%q) = %d, %d, %d, %v; want %d, %d, %d, true", id, level, first, last, ok, c[0], c[1], c[2])
		}
	}
}

func TestParseBlockIDRefusesOtherIDs(t *testing.T) {
	for _, id := range []string{"", "L", "L2", "L2-10", "L2-10-", "L2-10-9", "L0-1-2", "X2-1-2", "L2-1-2-3", "L2-01-2",
		"L2-1-2.", "L2-1-2.1", "L2-1-2.x", "L-1-1-2", "L2-+1-2", "chapter-3"} {
		if level, first, last, ok := fold.ParseBlockID(id); ok {
			t.Errorf("ParseBlockID(%q) = %d, %d, %d, true; want false", id, level, first, last)
		}
	}
}
