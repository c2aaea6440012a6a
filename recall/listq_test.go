package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestAsksForList: questions that count, pair, ask in the perfect or ask
// about a plural are list questions; questions about one thing, and a
// plural that is a verb ("what makes"), are not.
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
		"What're her plans for the summer?":                       true,
		"What are you working on?":                                false,
		"What data does the cache store?":                         false,
		"Update both handlers in the scheduler":                   false,
		"Count how many rows the cache holds":                     false,
		"how many retries did the deploy take":                    true,
		"Where has Melanie camped?":                               true,
		"What has Melanie painted?":                               true,
		"Who have written notes of gratitude to Maria?":           true,
		"Where did Melanie camp last summer?":                     false,
		"What has?":                                               false,
		"":                                                        false,
	} {
		if got := recall.AsksForList(q); got != want {
			t.Errorf("AsksForList(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestAListQuestionSpendsItsRoomOnItems: five turns name a book Anna
// read, each between two long turns about the weather. A question about
// one book brings its five best hits back with those neighbours; a
// question for the list, or for a judgment that weighs them all, brings
// the best hit alone with them, and the other items as themselves, so the
// same room holds more of the list.
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
	if got := withContext(ranges("Would Anna enjoy another book?")); got != 1 {
		t.Errorf("a judgment question: %d of the items came back with their neighbours, want only the best one", got)
	}
}

// TestFocusForAListQuestion: only a question to memory (a fill) that asks
// for a list or a judgment keeps one hit in focus; a recall with a limit,
// a fill about one thing, a request put to "you" and a comparison keep the
// configured focus.
func TestFocusForAListQuestion(t *testing.T) {
	c := recall.Config{Focus: 5}
	for _, tc := range []struct {
		q    recall.Query
		want int
	}{
		{recall.Query{Keywords: []string{"What books has Anna read?"}, Fill: true}, 1},
		{recall.Query{Keywords: []string{"What books has Anna read?"}, Limit: 5}, 5},
		{recall.Query{Keywords: []string{"Which book did Anna read?"}, Fill: true}, 5},
		{recall.Query{Keywords: []string{"Would Anna enjoy another book?"}, Fill: true}, 1},
		{recall.Query{Keywords: []string{"Would you name the book Anna read?"}, Fill: true}, 5},
		{recall.Query{Keywords: []string{"Did Anna read Dune or Emma first?"}, Fill: true}, 5},
	} {
		if got := c.FocusFor(tc.q); got != tc.want {
			t.Errorf("FocusFor(%+v) = %d, want %d", tc.q, got, tc.want)
		}
	}
}

// TestAListQuestionLeavesALongItemOut: past the focus, a fill leaves out a
// hit longer than an eighth of the room, so the room holds several
// shorter ones. One of the five books Anna read is told at length: a
// question about one book keeps it (it is among the best five, all in
// focus); a list question, whose focus is the best hit alone, leaves it
// out. The engine's fill and the recall agree on the focus.
func TestAListQuestionLeavesALongItemOut(t *testing.T) {
	t.Parallel()
	lines := fillers(300)
	items := map[int]string{
		20:  "Anna: I read Dune, a book about the desert.",
		80:  "Anna: I read Middlemarch, a long book.",
		140: "Anna: My club read Beloved, a fine book.",
		200: "Anna: I read Emma again, my favourite book.",
		260: "Anna: I read Ulysses on the train, a strange book, and " + strings.Repeat("the carriage rattled past fields and towns and rivers while I turned the pages slowly, ", 40),
	}
	for n, l := range items {
		lines[n-1] = l
	}
	eng, run := dialogue(t, lines, 4000, func(c *recall.Config) { c.SecondHop = -1 })
	shows := func(question string) bool {
		t.Helper()
		hits, err := eng.Retrieve(context.Background(), run, recall.Query{Keywords: []string{question}, DryRun: true, Fill: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{20, 80, 140, 200} {
			if _, ok := hitFor(hits, n); !ok {
				t.Fatalf("%q: the short item %d is not a hit: %+v", question, n, hits)
			}
		}
		_, ok := hitFor(hits, 260)
		return ok
	}
	if !shows("Which book did Anna read?") {
		t.Error("a question about one book left out the long item, one of its best five hits")
	}
	if shows("What books has Anna read?") {
		t.Error("a list question kept the long item past its focus: the fill's bound on one hit did not apply")
	}
}
