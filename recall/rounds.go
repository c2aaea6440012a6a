package recall

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// What the rounds of one fill share besides the notes (Around). A fill
// whose room holds more hits than it first asked for asks again
// (Query.Around), over the same state of the run: its first search ranks
// the same documents to the same depth, and its second hop expands the
// question with the words of the same best hits. A round that ran them
// already keeps what they gave, and the next runs only the searches that
// rank deeper (the concepts, the second hop's), which follow the hits it
// asks for. Six of BenchmarkRetrieve's eight questions ask twice at
// 100,000 iterations (mode=fill), and the first search there takes 8 to
// 12 ms: the recall's side of a fill (Engine.Retrieve less the rendering,
// which runs beside it) fell from 42 to 36 ms of CPU in profiles.

// firstSearch runs the first search of a recall, l, or gives what an
// earlier round of the same fill got from it. A nil a keeps nothing.
func (a *Around) firstSearch(ctx context.Context, ix *index, l lookup) ([]Hit, error) {
	if a == nil || l.concepts != nil {
		return ix.search(ctx, l)
	}
	key := searchKey(l)
	if hits, ok := a.searched[key]; ok {
		return slices.Clone(hits), nil
	}
	hits, err := ix.search(ctx, l)
	if err != nil {
		return nil, err
	}
	if a.searched == nil {
		a.searched = map[string][]Hit{}
	}
	a.searched[key] = slices.Clone(hits)
	return hits, nil
}

// searchKey names what a search without concepts ranks, and how deep;
// follow is not part of it: it sets the depth of other searches.
func searchKey(l lookup) string {
	var b strings.Builder
	for _, s := range append([]string{l.run, l.words, l.kind}, l.ids...) {
		b.WriteString(strconv.Quote(s))
	}
	for _, n := range []int{l.before, l.from, l.upTo, l.limit} {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// expansion gives the second hop's words for question from hits
// (Recaller.expansion), or what an earlier round got for the same
// question and the same feedback hits. A nil a keeps nothing.
func (a *Around) expansion(ctx context.Context, r *Recaller, ix *index, run, question string, hits []Hit) ([]string, error) {
	if a == nil {
		return r.expansion(ctx, ix, run, question, hits)
	}
	var b strings.Builder
	b.WriteString(strconv.Quote(question))
	docs := 0
	for _, h := range hits {
		if docs == feedbackDocs {
			break
		}
		if h.Kind == KindIteration {
			docs++
			b.WriteByte(' ')
			b.WriteString(strconv.Itoa(h.First))
		}
	}
	key := b.String()
	if words, ok := a.expanded[key]; ok {
		return words, nil
	}
	words, err := r.expansion(ctx, ix, run, question, hits)
	if err != nil {
		return nil, err
	}
	if a.expanded == nil {
		a.expanded = map[string][]string{}
	}
	a.expanded[key] = words
	return words, nil
}
