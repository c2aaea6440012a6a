package recall

import "strings"

// exchange narrows lo..hi, the hit's range and one iteration on each side,
// to the hit and the turns of the same exchange: the iteration before it
// when that one asked a question (the hit may answer it), the iteration
// after it when the hit asked one (the next may answer it). A neighbour
// too long for context (trimContext's bound) stays out, and so does one
// the query does not match (Around.matched). In a dialogue this brings
// back the other half of a question and its answer, which is often where
// the fact a question to memory wants is; a neighbour that only shares
// the time brings back nothing the hit does not, and a half that shares
// no word with the question to memory seldom holds what it asks, and
// takes the room of a hit that might. The iterations around the hit must
// be read (need), with what they said.
func (a *Around) exchange(h Hit, lo, hi int) (int, int) {
	if lo == h.First && hi == h.Last {
		return lo, hi
	}
	first, last := a.trimContext(h, lo, hi)
	if first == h.First && last == h.Last {
		return first, last
	}
	if first < h.First && (!a.matched[first] || !asksQuestion(a.says[first])) {
		first = h.First
	}
	if last > h.Last && (!a.matched[last] || !asksQuestion(a.says[h.Last])) {
		last = h.Last
	}
	return first, last
}

// matchedIterations returns the iterations that iteration hits hold: those
// the query matches, as far as the search ranked them.
func matchedIterations(hits []Hit) map[int]bool {
	matched := make(map[int]bool, len(hits))
	for _, h := range hits {
		if h.Kind == KindIteration {
			for n := h.First; n <= h.Last; n++ {
				matched[n] = true
			}
		}
	}
	return matched
}

// asksQuestion reports whether an iteration's last words (journal.Store.Said)
// end on a question: less a closing bracketed note such as "[shares an
// image: …]", they end with a question mark.
func asksQuestion(text string) bool {
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
