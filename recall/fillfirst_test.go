package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/recall"
)

// TestABestHitLongerThanTheRoomLeavesItToTheNext: under a small budget,
// the best hit is one long turn, longer than the whole room, so the window
// shows it as its line. The fill charges it that line, not its full text,
// and the short turns ranked after it, each of which answers the question
// for a pier, take the room its full text would have taken. Charged in
// full, the long turn left no room, and the window gave it to the turns
// before the question.
func TestABestHitLongerThanTheRoomLeavesItToTheNext(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	lines[100] = "Mel: The Westbury ferry leaves, " + strings.Repeat("the Westbury ferry with its windy deck and the gulls that follow it as it leaves, ", 60) + "is a fine boat."
	short := piers(lines)
	const budget = 1000
	eng, run := dialogue(t, lines, budget, nil)
	ctx := context.Background()
	q := recall.Query{Keywords: []string{"When does the Westbury ferry leave?"}}
	dry := q
	dry.DryRun = true
	hits, err := eng.Retrieve(ctx, run, dry)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Matched != [2]int{101, 101} {
		t.Fatalf("the long turn (101) is not the best hit: %+v", hits)
	}
	if eng.Tokenizer.Count(lines[100]) <= budget {
		t.Fatalf("the long turn takes %d tokens, within the budget", eng.Tokenizer.Count(lines[100]))
	}
	if strings.Contains(hits[0].Content, "is a fine boat") {
		t.Errorf("the long turn comes in full, longer than the room: %.200q", hits[0].Content)
	}
	for _, at := range short {
		if _, ok := hitFor(hits, at+1); !ok {
			t.Errorf("the short turn at iteration %d is not a hit: %v", at+1, ranges(hits))
		}
	}
	// Recorded, the window shows them, within the budget.
	if _, err := eng.Retrieve(ctx, run, q); err != nil {
		t.Fatal(err)
	}
	cw, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := cw.Markdown()
	for _, at := range short {
		if !strings.Contains(md, lines[at]) {
			t.Errorf("the window does not show the short turn at iteration %d", at+1)
		}
	}
	if n := eng.Tokenizer.Count(md); n > budget {
		t.Errorf("the window takes %d tokens, over its budget of %d", n, budget)
	}
}

// ranges lists the hits' matched iterations, for a failure's message.
func ranges(hits []memory.Retrieved) [][2]int {
	out := make([][2]int, len(hits))
	for i, h := range hits {
		out[i] = h.Matched
	}
	return out
}

// TestABestHitWhoseContextOverflowsComesAlone: the best hit is a turn that
// fits the room, but with the turns around it (its context) it does not;
// it comes as that turn alone, in full, and the short turns after it
// still find room.
func TestABestHitWhoseContextOverflowsComesAlone(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	filler := strings.Repeat("We talked about the rain on the hills and the long road home, ", 8)
	lines[99] = "Caro: " + strings.Repeat(filler, 5)
	lines[100] = "Mel: The Westbury ferry leaves at nine, " + strings.Repeat("the Westbury ferry leaves from the quay, ", 12) + filler
	lines[101] = "Caro: " + strings.Repeat(filler, 5)
	short := piers(lines)
	eng, run := dialogue(t, lines, 1000, nil)
	hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{"When does the Westbury ferry leave?"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Matched != [2]int{101, 101} {
		t.Fatalf("the Westbury turn (101) is not the best hit: %v", ranges(hits))
	}
	if hits[0].Iterations != hits[0].Matched || !strings.Contains(hits[0].Content, lines[100][:60]) || !strings.Contains(hits[0].Content, "long road home") {
		t.Errorf("the best hit is not its turn alone in full: %v %.300q", hits[0].Iterations, hits[0].Content)
	}
	for _, at := range short {
		if _, ok := hitFor(hits, at+1); !ok {
			t.Errorf("the short turn at iteration %d is not a hit: %v", at+1, ranges(hits))
		}
	}
}

// piers puts five short turns into lines, each of which says when the boat
// to one pier leaves, and returns where they are.
func piers(lines []string) []int {
	at := []int{150, 170, 190, 210, 230}
	for i, n := range at {
		lines[n] = fmt.Sprintf("Caro: The boat to pier %d leaves at %d.", i+1, i+6)
	}
	return at
}
