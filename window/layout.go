package window

import "sort"

// span is where one rendered section ends in the Markdown, and what it is.
type span struct {
	end       int
	partition string
	source    string
}

// Place says what part of the window a byte offset of its Markdown falls in.
type Place struct {
	// Partition is the partition's JSON name ("working"), or "" past the
	// last section.
	Partition string `json:"partition"`
	// Source is the section's source ("block:…", "iteration:97", …).
	Source string `json:"source,omitempty"`
}

// SharedPrefix is the length in bytes of the prefix two renderings share:
// where a window first differs from the one before it, the end of what a
// provider's prompt cache reuses.
func SharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// PlaceAt returns the partition and section the Markdown's byte at offset
// belongs to: a partition's heading counts as part of its first section.
// It tells where two consecutive windows start to differ, that is where a
// provider's prompt cache stops reusing the previous call.
func (c *Context) PlaceAt(offset int) Place {
	i := sort.Search(len(c.spans), func(i int) bool { return c.spans[i].end > offset })
	if i == len(c.spans) {
		return Place{}
	}
	return Place{Partition: c.spans[i].partition, Source: c.spans[i].source}
}
