package journal

import "sync"

// openCacheMax bounds how many runs' open iterations a Store remembers.
const openCacheMax = 64

// openCache remembers, per run, the open iteration as it stood after the
// last committed append, so the next append need not read and regroup its
// events. An entry is only used while the run's stored last_seq still equals
// the one it was saved at: an append by another process (or Store) moves
// last_seq on and the entry is ignored.
type openCache struct {
	mu sync.Mutex
	m  map[string]openEntry
}

type openEntry struct {
	lastSeq int64
	cur     *Iteration
}

// get returns a private copy of the run's open iteration if the entry is
// still valid for lastSeq and iteration number n.
func (c *openCache) get(run string, lastSeq int64, n int) *Iteration {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[run]
	if !ok || e.lastSeq != lastSeq || e.cur == nil || e.cur.Number != n {
		return nil
	}
	return e.cur.clone()
}

// put records the open iteration after a commit. it must not be used by the
// caller afterwards.
func (c *openCache) put(run string, lastSeq int64, it *Iteration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= openCacheMax {
		c.m = make(map[string]openEntry)
	}
	c.m[run] = openEntry{lastSeq: lastSeq, cur: it}
}

// clone copies the parts of an iteration that grouping mutates.
func (it *Iteration) clone() *Iteration {
	c := *it
	c.User = append([]string(nil), it.User...)
	c.Calls = append([]ToolCall(nil), it.Calls...)
	c.Notes = append([]Note(nil), it.Notes...)
	c.Events = append([]Event(nil), it.Events...)
	return &c
}
