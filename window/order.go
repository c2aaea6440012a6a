package window

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// joinOrder lays the shown recalls out in the order they were made, oldest
// first, with the "not shown" trace last. The fitter takes them most wanted
// first, which puts a new recall at the top of the partition and shifts
// every byte after it; in the order they were made, a new recall is
// appended and one fading removes only itself, so the text before it stays
// as the provider's prompt cache last saw it.
func joinOrder(p *Partition) {
	slices.SortStableFunc(p.Sections, func(a, b Section) int {
		return cmp.Compare(recallSeq(a.Source), recallSeq(b.Source))
	})
}

// recallSeq is the number of a "recall:N" source: recalls are numbered as
// they are made. Anything else sorts last.
func recallSeq(source string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(source, "recall:"))
	if err != nil || !strings.HasPrefix(source, "recall:") {
		return int(^uint(0) >> 1)
	}
	return n
}
