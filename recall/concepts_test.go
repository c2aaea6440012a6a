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
	rank := func(hits []memory.Retrieved, n int) int {
		for i, h := range hits {
			if h.Matched[0] <= n && n <= h.Matched[1] {
				return i
			}
		}
		return len(hits)
	}
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
