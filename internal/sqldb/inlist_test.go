package sqldb

import (
	"strings"
	"testing"
)

func TestInListPadsToAFewShapes(t *testing.T) {
	for _, tc := range []struct{ n, size int }{{1, 4}, {4, 4}, {5, 16}, {17, 64}, {300, 1024}, {1025, 2048}} {
		numbers := make([]int, tc.n)
		for i := range numbers {
			numbers[i] = 10 + i
		}
		list, args := InList(numbers)
		if got := strings.Count(list, "?"); got != tc.size || len(args) != tc.size {
			t.Errorf("%d numbers: %d placeholders and %d arguments, want %d", tc.n, got, len(args), tc.size)
		}
		for i, a := range args {
			if want := numbers[min(i, tc.n-1)]; a != want {
				t.Fatalf("%d numbers: argument %d is %v, want %d", tc.n, i, a, want)
			}
		}
		if !strings.HasPrefix(list, "(?") || !strings.HasSuffix(list, "?)") {
			t.Errorf("%d numbers: list %q is not parenthesized", tc.n, list[:min(len(list), 20)])
		}
	}
}

func TestInChunksSplitsLongLists(t *testing.T) {
	numbers := make([]int, 2*MaxInList+3)
	for i := range numbers {
		numbers[i] = i + 1
	}
	var sizes []int
	next := 1
	err := InChunks(numbers, func(chunk []int, list string, args []any) error {
		sizes = append(sizes, len(chunk))
		if chunk[0] != next || strings.Count(list, "?") != len(args) {
			t.Fatalf("chunk from %d (want %d), %d placeholders for %d arguments", chunk[0], next, strings.Count(list, "?"), len(args))
		}
		next += len(chunk)
		return nil
	})
	if err != nil || len(sizes) != 3 || sizes[0] != MaxInList || sizes[2] != 3 || next != len(numbers)+1 {
		t.Fatalf("chunks %v, next %d, err %v", sizes, next, err)
	}
}
