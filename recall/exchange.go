package recall

import (
	"context"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// exchange narrows lo..hi, the hit's range and one iteration on each side,
// to the hit and the turns of the same exchange: the iteration before it
// when that one asked a question (the hit may answer it), the iteration
// after it when the hit asked one (the next may answer it). A neighbour
// too long for context (trimContext's bound) stays out. In a dialogue
// this brings back the other half of a question and its answer, which is
// often where the fact a question to memory wants is; a neighbour that
// only shares the time brings back nothing the hit does not.
func (r *Recaller) exchange(ctx context.Context, run string, h Hit, lo, hi int) (int, int, error) {
	if lo == h.First && hi == h.Last {
		return lo, hi, nil
	}
	first, last, err := r.trimContext(ctx, run, h, lo, hi)
	if err != nil || first == h.First && last == h.Last {
		return h.First, h.Last, err
	}
	its, err := r.journal.Iterations(ctx, run, first, last, journal.ReadOptions{})
	if err != nil {
		return 0, 0, err
	}
	asks := make(map[int]bool, len(its))
	for _, it := range its {
		asks[it.Number] = asksQuestion(it)
	}
	if first < h.First && !asks[first] {
		first = h.First
	}
	if last > h.Last && !asks[h.Last] {
		last = h.Last
	}
	return first, last, nil
}

// asksQuestion reports whether an iteration ends on a question: its last
// words (its thought, else its last user message), less a closing
// bracketed note such as "[shares an image: …]", end with a question mark.
func asksQuestion(it *journal.Iteration) bool {
	text := it.Thought
	if strings.TrimSpace(text) == "" && len(it.User) > 0 {
		text = it.User[len(it.User)-1]
	}
	text = strings.TrimSpace(text)
	for strings.HasSuffix(text, "]") {
		i := strings.LastIndexByte(text, '[')
		if i <= 0 {
			break
		}
		text = strings.TrimSpace(text[:i])
	}
	return strings.HasSuffix(text, "?")
}
