package recall_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestAsksForList: questions that count, pair, or ask about a plural are
// list questions; questions about one thing, and a plural that is a verb
// ("what makes"), are not.
func TestAsksForList(t *testing.T) {
	for q, want := range map[string]bool{
		"What books has Melanie read?":                            true,
		"What kind of activities did Maria do at the picnic?":     true,
		"What are Maria's dogs' names?":                           true,
		"How many weddings have I attended this year?":            true,
		"What do Jon and Gina both have in common?":               true,
		"Which cities has Jon visited?":                           true,
		"What did Caroline research?":                             false,
		"When did Melanie run a charity race?":                    false,
		"What is Caroline's identity?":                            false,
		"According to Gina, what makes Jon a perfect mentor?":     false,
		"What kind of art does Caroline make?":                    false,
		"What types of pottery have Melanie and her kids made?":   true,
		"Which social media platform did I gain followers on?":    false,
		"Why did the deploy fail on the staging hosts yesterday?": false,
		"": false,
	} {
		if got := recall.AsksForList(q); got != want {
			t.Errorf("AsksForList(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestAListQuestionSpendsItsRoomOnItems: five turns name a book Anna
// read, each between two long turns about the weather. A question about
// one book brings its five best hits back with those neighbours; a
// question for the list brings the best hit alone with them, and the
// other items as themselves, so the same room holds more of the list.
func TestAListQuestionSpendsItsRoomOnItems(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	items := []int{20, 80, 140, 200, 260}
	for i, n := range items {
		lines[n-1] = []string{
			"Anna: I finished reading Dune, what a book about the desert.",
			"Anna: Reading Middlemarch took me all winter, a long book.",
			"Anna: My book club read Beloved and I loved the book.",
			"Anna: I read Ulysses on the train, a strange book.",
			"Anna: Just read Emma again, my favourite book.",
		}[i]
	}
	eng, run := dialogue(t, lines, 4000, func(c *recall.Config) { c.SecondHop = -1 })
	ranges := func(question string) map[int][2]int {
		t.Helper()
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{question}, DryRun: true, Fill: true})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int][2]int{}
		for _, n := range items {
			h, ok := hitFor(hits, n)
			if !ok {
				t.Fatalf("%q: item %d is not a hit: %+v", question, n, hits)
			}
			out[n] = h.Iterations
		}
		return out
	}
	withContext := func(rs map[int][2]int) int {
		n := 0
		for at, r := range rs {
			if r != [2]int{at, at} {
				n++
			}
		}
		return n
	}
	if got := withContext(ranges("Which book did Anna read?")); got != len(items) {
		t.Errorf("a question about one book: %d of its %d best hits came back with their neighbours, want all", got, len(items))
	}
	if got := withContext(ranges("What books has Anna read?")); got != 1 {
		t.Errorf("a list question: %d of the items came back with their neighbours, want only the best one", got)
	}
}
