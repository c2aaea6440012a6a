package recall_test

import (
	"testing"

	"github.com/delta-memory/delta-memory/recall"
)

// TestQuestionsAnsweredBySeveralTurns: a modal of what would or might be,
// or an adverb of likelihood, asks for a judgment, unless put to "you" or
// the asker's wish ("I would like"); list questions and judgments are
// answered by several turns, and a comparison, a question about one
// thing, or a subtask, are not.
func TestQuestionsAnsweredBySeveralTurns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		asks  func(string) bool
		cases map[string]bool
	}{
		{"AsksJudgment", recall.AsksJudgment, map[string]bool{
			"Would Caroline pursue writing as a career option?":              true,
			"What would Caroline's political leaning likely be?":             true,
			"What might John's financial status be?":                         true,
			"Is Melanie likely to enjoy the song by Vivaldi?":                true,
			"Which job will Maria probably take?":                            true,
			"would the deploy fail again on the staging hosts":               true,
			"Can you tell me the recipe again? I would like to cook it now.": false,
			"Would Melanie like a trip to the mountains?":                    true,
			"What did Caroline research?":                                    false,
			"When did John get his dog Max?":                                 false,
			"Would you remind me of the hotel you recommended in Bandung?":   false,
			"Might you remember the name of that bakery?":                    false,
			"Could Jon open his studio in the summer?":                       false,
			"Find what would break if the cache were cleared":                false,
			"": false,
		}},
		{"AsksForSeveral", recall.AsksForSeveral, map[string]bool{
			"What books has Melanie read?":                 true,
			"Would Melanie go on another roadtrip soon?":   true,
			"Did I fix the bike or the car first?":         false,
			"What did Melanie paint for the art show?":     false,
			"Would you list the books you recommended me?": false,
		}},
	} {
		for q, want := range tc.cases {
			if got := tc.asks(q); got != want {
				t.Errorf("%s(%q) = %v, want %v", tc.name, q, got, want)
			}
		}
	}
}
