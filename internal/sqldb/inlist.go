package sqldb

import "strings"

// inListSizes are the lengths InList pads a list to; a longer list is
// padded to a multiple of the last.
var inListSizes = [...]int{4, 16, 64, 256, 1024}

// InList returns the placeholders of `x IN (…)` for numbers, parenthesized,
// and the arguments that fill them. The list is padded by repeating its
// last number to the next of a few lengths, so that the caches of prepared
// and translated statements (stmtcache.go, rewrite.go), which keep one
// entry per query text, see a few shapes of such a query rather than one
// per length. numbers must not be empty; keep it under SQLite's bound on
// placeholders (32,766 less the query's others).
func InList(numbers []int) (string, []any) {
	n := len(numbers)
	size := inListSizes[len(inListSizes)-1]
	for _, s := range inListSizes {
		if n <= s {
			size = s
			break
		}
	}
	if n > size {
		size = (n + size - 1) / size * size
	}
	args := make([]any, size)
	for i := range args {
		args[i] = numbers[min(i, n-1)]
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", size), ", ") + ")", args
}

// MaxInList is the most numbers InChunks puts in one list: a long list is
// read in several statements, well under SQLite's bound on placeholders.
const MaxInList = 1024

// InChunks calls read for numbers MaxInList at a time, with each chunk's
// InList placeholders and arguments, and stops at the first error.
func InChunks(numbers []int, read func(chunk []int, list string, args []any) error) error {
	for len(numbers) > 0 {
		chunk := numbers[:min(len(numbers), MaxInList)]
		numbers = numbers[len(chunk):]
		list, args := InList(chunk)
		if err := read(chunk, list, args); err != nil {
			return err
		}
	}
	return nil
}
