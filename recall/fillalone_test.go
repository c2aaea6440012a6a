package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestAHitItsExchangeMakesTooLongComesAlone: under a small budget, past
// the best five hits, a short question that matched comes back with the
// long answer after it (its exchange), and the two take more than the
// sixth hit's share of the room (a sixth). The hit is then taken alone,
// not passed over: the share bounds what one hit takes of the room, and it
// was the answer that made this one long.
func TestAHitItsExchangeMakesTooLongComesAlone(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	for i, at := range []int{40, 60, 80, 120, 140} {
		lines[at] = fmt.Sprintf("Marathon day %d: my marathon time was four hours, my best marathon time yet.", i+1)
	}
	lines[200] = "Mel: I keep thinking of the city marathon along the river last spring, with the whole running club there. How did it go for you?"
	lines[201] = "Caro: The marathon went " + strings.Repeat("well, with a hill near the river, a loud crowd and water stations far apart, ", 9) + "and I finished."
	eng, run := dialogue(t, lines, 1000, nil)
	hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"What was my marathon time?"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{40, 60, 80, 120, 140} {
		if _, ok := hitFor(hits, at+1); !ok {
			t.Fatalf("the turn at iteration %d, among the best five, is not a hit: %+v", at+1, hits)
		}
	}
	h, ok := hitFor(hits, 201)
	if !ok {
		t.Fatalf("the question at iteration 201, whose answer is too long for its share of the room, is not a hit: %+v", hits)
	}
	if h.Iterations != [2]int{201, 201} {
		t.Errorf("the question at iteration 201 comes back as iterations %v, want it alone, without its long answer", h.Iterations)
	}
}
