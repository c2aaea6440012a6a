package recall_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/recall"
)

// TestConceptsFindTheMembersOfACategory: the question asks which sports
// Gina plays; the turns that answer it name swimming and tennis, not
// sport. By the words, they match only "Gina", as a newer turn about her
// brother does, which ranks first; with the concept signal they rank
// above it. A recall that does not fill the window (an agent's keywords,
// with a limit) is left as the words rank it.
func TestConceptsFindTheMembersOfACategory(t *testing.T) {
	t.Parallel()
	lines := fillers(200)
	lines[39] = "Gina: I went swimming at the lake before work."
	lines[99] = "Gina: Tennis on Saturday, then lunch before work."
	lines[149] = "Gina: My brother visited the lake before work."
	ask := func(concepts float64, q recall.Query) []memory.Retrieved {
		eng, run := dialogue(t, lines, 4000, func(c *recall.Config) { c.Concepts, c.SecondHop, c.Nearby = concepts, -1, -1 })
		q.DryRun = true
		hits, err := eng.Retrieve(context.Background(), run, q)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	question := recall.Query{Keywords: []string{"Which sports does Gina play?"}, Fill: true}
	rank := matchedRank
	// By its words alone, each Gina turn matches only her name, as much as
	// the others (six words each), and the newest ranks first.
	without := ask(-1, question)
	if rank(without, 150) > rank(without, 40) || rank(without, 150) > rank(without, 100) {
		t.Fatalf("set-up: iteration 150 does not rank first without concepts: %+v", without)
	}
	with := ask(0.25, question)
	for _, n := range []int{40, 100} {
		if rank(with, n) > rank(with, 150) {
			t.Errorf("iteration %d (a sport) ranks %d with concepts, below iteration 150 (only Gina) at %d: %+v", n, rank(with, n), rank(with, 150), with)
		}
	}
	// Not a question to memory: an agent's short keyword recall.
	if got := ask(0.25, recall.Query{Keywords: []string{"sports Gina"}, Limit: 5}); rank(got, 150) != 0 {
		t.Errorf("a recall with a limit used the concepts: %+v", got)
	}
}

// TestConceptsReadTwoWordNouns: "martial arts" is a compound, under which
// WordNet files taekwondo; read as two words, "martial" is a Roman poet
// and "arts" is art, under which painting falls. The taekwondo turn must
// rank first, above the painting turn and a newer turn that matches only
// "John" (which ranks first without compounds). The documents are
// read the same way: "ice cream" is a frozen dessert, so a question about
// desserts finds it, which neither "ice" nor "cream" alone reaches.
func TestConceptsReadTwoWordNouns(t *testing.T) {
	t.Parallel()
	lines := fillers(200)
	lines[39] = "John: Taekwondo class again tonight before work."
	lines[99] = "John: My newest painting hangs in the hall before work."
	lines[119] = "John: We had ice cream on the pier before work."
	lines[149] = "John: My brother visited the lake before work."
	eng, run := dialogue(t, lines, 4000, func(c *recall.Config) { c.Concepts, c.SecondHop, c.Nearby = 0.25, -1, -1 })
	rankOf := func(question string, n int) int {
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{question}, Fill: true, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		return matchedRank(hits, n)
	}
	q := "What martial arts has John done?"
	if tk, paint, lake := rankOf(q, 40), rankOf(q, 100), rankOf(q, 150); tk > paint || tk > lake {
		t.Errorf("the taekwondo turn ranks %d, below the painting turn (%d) or the lake turn (only John, %d)", tk, paint, lake)
	}
	if cream, lake := rankOf("Which desserts does John like?", 120), rankOf("Which desserts does John like?", 150); cream > lake {
		t.Errorf("the ice cream turn ranks %d, below the lake turn (only John) at %d", cream, lake)
	}
}

// matchedRank is the place among hits of the first whose match holds
// iteration n, len(hits) when none does.
func matchedRank(hits []memory.Retrieved, n int) int {
	for i, h := range hits {
		if h.Matched[0] <= n && n <= h.Matched[1] {
			return i
		}
	}
	return len(hits)
}
