package scoring

import "math"

// noRank marks two adjacent parts that do not merge into a token.
const noRank = math.MaxUint32

// smallPiece is the longest piece, in bytes, that countPiece merges with a
// quadratic scan over arrays on the stack. Longer pieces, rare in practice
// but possibly many kilobytes long, are merged with a heap.
const smallPiece = 64

// countPiece returns the number of tokens byte-pair encoding turns piece, one
// pre-tokenized piece, into: 1 if the piece is a token, otherwise the number
// of parts left after repeatedly merging the adjacent pair of parts whose
// concatenation has the lowest rank (the leftmost on ties) until no adjacent
// pair is a token. Every single byte is a token, so the parts always are.
func (v *vocabulary) countPiece(piece string) int {
	if _, ok := v.Rank(piece); ok {
		return 1
	}
	if len(piece) <= smallPiece {
		return v.mergeScan(piece)
	}
	return v.mergeHeap(piece)
}

// pairRank returns the rank of piece[from:to] as a token, or noRank.
func (v *vocabulary) pairRank(piece string, from, to int) uint32 {
	if r, ok := v.Rank(piece[from:to]); ok {
		return r
	}
	return noRank
}

// scanPart is a part of a piece in mergeScan: where it starts, and the rank
// of the token it forms with the next part.
type scanPart struct {
	start int
	rank  uint32
}

// mergeScan merges a piece of at most smallPiece bytes, finding each merge
// with a linear scan, and returns the number of parts left.
func (v *vocabulary) mergeScan(piece string) int {
	var parts [smallPiece + 1]scanPart // parts[n] marks the end of the piece
	n := len(piece)
	for i := range n + 1 {
		parts[i] = scanPart{i, noRank}
	}
	for i := 0; i+1 < n; i++ {
		parts[i].rank = v.pairRank(piece, i, i+2)
	}
	// rankAt is the rank of parts i and i+1 merged, given n parts.
	rankAt := func(i int) uint32 {
		if i+2 > n {
			return noRank
		}
		return v.pairRank(piece, parts[i].start, parts[i+2].start)
	}
	for n > 1 {
		best := 0
		for i := 1; i < n-1; i++ {
			if parts[i].rank < parts[best].rank {
				best = i
			}
		}
		if parts[best].rank == noRank {
			break
		}
		copy(parts[best+1:n], parts[best+2:n+1])
		n--
		parts[best].rank = rankAt(best)
		if best > 0 {
			parts[best-1].rank = rankAt(best - 1)
		}
	}
	return n
}

// mergeHeap merges a piece of any length in O(n log n) lookups and returns
// the number of parts left. Parts are named by their start offset and linked
// both ways; rank[i] is the rank of part i merged with its successor, noRank
// if it does not merge or part i has been merged away. The queue holds every
// candidate merge, and entries whose rank no longer matches are skipped.
func (v *vocabulary) mergeHeap(piece string) int {
	n := int32(len(piece))
	next := make([]int32, n)
	prev := make([]int32, n)
	rank := make([]uint32, n)
	queue := make(mergeQueue, 0, n)
	// rankAt is the rank of part i merged with its successor.
	rankAt := func(i int32) uint32 {
		j := next[i]
		if j >= n {
			return noRank
		}
		return v.pairRank(piece, int(i), int(next[j]))
	}
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	for i := range n {
		rank[i] = rankAt(i)
		if rank[i] != noRank {
			queue = append(queue, mergeCandidate{rank[i], i})
		}
	}
	queue.init()
	parts := int(n)
	for len(queue) > 0 {
		c := queue.pop()
		if rank[c.start] != c.rank {
			continue
		}
		i, j := c.start, next[c.start]
		rank[j] = noRank
		next[i] = next[j]
		if next[j] < n {
			prev[next[j]] = i
		}
		parts--
		for _, k := range [2]int32{i, prev[i]} {
			if k < 0 {
				continue
			}
			if rank[k] = rankAt(k); rank[k] != noRank {
				queue.push(mergeCandidate{rank[k], k})
			}
		}
	}
	return parts
}
