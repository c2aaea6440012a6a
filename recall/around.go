package recall

import (
	"context"
	"maps"
	"slices"
)

// Noted is what the notes say of an iteration: the tokens it takes in
// full (L0) and whether a block covers it.
type Noted struct {
	Tokens int
	Folded bool
}

// aroundBatch is how many ranked hits ahead an explicit recall reads the
// iterations around at once (Around.need).
const aroundBatch = 32

// Around holds what an explicit recall reads of the iterations around its
// hits: their sizes and covers, and for a fill what the turns that may
// join a hit's exchange said last. It reads them a batch of hits ahead, in
// a statement or two, so that a fill of hundreds of hits across a long run
// pays a few statements rather than several per hit. A fill that asks
// again for more hits (Query.Around) keeps it, and reads only what the
// first round did not: it is for the rounds of one fill, over one state of
// the run, by one goroutine. The zero value is ready to use.
type Around struct {
	run    string
	noted  map[int]Noted
	says   map[int]string
	read   map[int]bool    // numbers whose note was read
	asked  map[int]bool    // numbers whose words were read
	done   map[[2]int]bool // the hits, by range, whose surroundings were read
	end    int
	radius int
	said   bool
	// matched holds the iterations the recall's query matches, as its
	// hits rank them: only those join a fill's exchanges, and only their
	// words are read. Each round sets it.
	matched map[int]bool
	// searched holds the first searches of earlier rounds, by what they
	// ranked; expanded, the second hop's words, by question and the hits
	// that gave them (rounds.go).
	searched map[string][]Hit
	expanded map[string][]string
}

// reset makes a ready for run, of end iterations, with radius iterations
// of context on each side of a hit, reading words with said, dropping what
// it holds of another run, of the run at another length, or for other
// settings (what the searches of earlier rounds gave, too).
func (a *Around) reset(run string, end, radius int, said bool) {
	if a.run == run && a.end == end && a.radius == radius && a.said == said && a.read != nil {
		return
	}
	*a = Around{run: run, end: end, radius: radius, said: said, noted: map[int]Noted{}, says: map[int]string{}, read: map[int]bool{}, asked: map[int]bool{},
		done: map[[2]int]bool{}}
}

// span is the iterations around h that a recall may show with it, within
// the run.
func (a *Around) span(h Hit) (int, int) {
	return max(1, h.First-a.radius), min(a.end, h.Last+a.radius)
}

// need makes sure the iterations around hits[i], an iteration hit, are
// read: when they are not, it reads the notes around hits[i] and the hits
// after it (aroundBatch in all, or two more than the want hits the recall
// still takes), and, when reset asked for words, what the turns that may
// join each one's exchange said (wordsWanted).
func (a *Around) need(ctx context.Context, r *Recaller, hits []Hit, i, want int) error {
	if a.done[[2]int{hits[i].First, hits[i].Last}] {
		if !a.said {
			return nil
		}
		// An earlier round read around it, when the query matched fewer
		// of its neighbours, maybe.
		return a.readSaid(ctx, r, a.wordsWanted(nil, hits[i]))
	}
	var batch []Hit
	for _, h := range hits[i:min(len(hits), i+min(aroundBatch, want+2))] {
		if h.Kind == KindIteration && !a.done[[2]int{h.First, h.Last}] {
			batch = append(batch, h)
		}
	}
	var numbers []int
	for _, h := range batch {
		lo, hi := a.span(h)
		for n := lo; n <= hi; n++ {
			if !a.read[n] {
				numbers = append(numbers, n)
			}
		}
	}
	err := readInto(numbers, a.read, a.noted, func(ns []int) (map[int]Noted, error) { return r.folds.Noted(ctx, a.run, ns) })
	if err == nil && a.said {
		var words []int
		for _, h := range batch {
			words = a.wordsWanted(words, h)
		}
		err = a.readSaid(ctx, r, words)
	}
	if err != nil {
		return err
	}
	// Done only once read: a recall that failed here and is tried again
	// with the same Around reads them again.
	for _, h := range batch {
		a.done[[2]int{h.First, h.Last}] = true
	}
	return nil
}

// readSaid reads what iterations words said last, those not read yet.
func (a *Around) readSaid(ctx context.Context, r *Recaller, words []int) error {
	return readInto(words, a.asked, a.says, func(ns []int) (map[int]string, error) { return r.journal.SaidAt(ctx, a.run, ns) })
}

// readInto reads numbers (sorted and without repeats here) with read, into
// into, and marks them in marked; with none, it reads nothing.
func readInto[V any](numbers []int, marked map[int]bool, into map[int]V, read func([]int) (map[int]V, error)) error {
	slices.Sort(numbers)
	numbers = slices.Compact(numbers)
	if len(numbers) == 0 {
		return nil
	}
	got, err := read(numbers)
	if err != nil {
		return err
	}
	maps.Copy(into, got)
	for _, n := range numbers {
		marked[n] = true
	}
	return nil
}

// wordsWanted appends to words the iterations whose last words the
// exchange of hit h may look at, not read yet: the hit's last, when the
// next iteration is short enough to join it and the query matches it, and
// the one before the hit, when it is and the query matches it. A hit that
// joins no neighbour reads no words.
func (a *Around) wordsWanted(words []int, h Hit) []int {
	lo, hi := a.trimContext(h, max(1, h.First-1), min(max(1, a.end-1), h.Last+1))
	if lo < h.First && a.matched[lo] && !a.asked[lo] {
		words = append(words, lo)
	}
	if hi > h.Last && a.matched[hi] && !a.asked[h.Last] {
		words = append(words, h.Last)
	}
	return words
}

// inFull counts the iterations of first..last, read, that show in full:
// no block covers them, or they have no note yet.
func (a *Around) inFull(first, last int) int {
	full := 0
	for n := first; n <= last; n++ {
		if !a.noted[n].Folded {
			full++
		}
	}
	return full
}

// InFull reports whether iterations first..last, read, all show in full
// (Recall.Visible).
func (a *Around) InFull(first, last int) bool { return a.inFull(first, last) == last-first+1 }

// Tokens reports what the notes say iteration n takes in full (L0), and
// whether its note was read and says so.
func (a *Around) Tokens(n int) (int, bool) {
	v, ok := a.noted[n]
	return v.Tokens, ok && v.Tokens > 0
}
