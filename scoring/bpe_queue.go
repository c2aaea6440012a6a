package scoring

// mergeCandidate is a possible merge in mergeHeap: the part starting at
// start with its successor, forming the token of rank rank.
type mergeCandidate struct {
	rank  uint32
	start int32
}

// mergeQueue is a binary min-heap of merge candidates, lowest rank first and
// leftmost first among equal ranks. It is typed, unlike container/heap, so
// that pushing does not allocate.
type mergeQueue []mergeCandidate

// before reports whether entry a comes out of the queue before entry b.
func (q mergeQueue) before(a, b int) bool {
	if q[a].rank != q[b].rank {
		return q[a].rank < q[b].rank
	}
	return q[a].start < q[b].start
}

// init orders the queue after its entries were appended directly.
func (q mergeQueue) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// push adds a candidate.
func (q *mergeQueue) push(c mergeCandidate) {
	*q = append(*q, c)
	q.up(len(*q) - 1)
}

// pop removes and returns the first candidate; the queue must not be empty.
func (q *mergeQueue) pop() mergeCandidate {
	h := *q
	first := h[0]
	last := len(h) - 1
	h[0] = h[last]
	*q = h[:last]
	q.down(0)
	return first
}

// up moves entry i towards the root until its parent comes before it.
func (q mergeQueue) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.before(i, parent) {
			return
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
}

// down moves entry i towards the leaves until it comes before its children.
func (q mergeQueue) down(i int) {
	for {
		first := 2*i + 1
		if first >= len(q) {
			return
		}
		if second := first + 1; second < len(q) && q.before(second, first) {
			first = second
		}
		if !q.before(first, i) {
			return
		}
		q[i], q[first] = q[first], q[i]
		i = first
	}
}
