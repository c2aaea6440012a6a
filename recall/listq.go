package recall

import (
	"strings"
	"unicode"

	"github.com/delta-memory/delta-memory/internal/lexicon"
)

// List questions. A question that asks for several things ("What books
// has Melanie read?", "How many weddings have I attended?", "What do Jon
// and Gina both like?") is answered by turns spread over the run, one
// item each; a question about one thing ("What did Caroline research?")
// by one turn and the exchange around it. Question answering has long
// told the two apart (TREC's list questions) by the form of the question:
// the noun the question word asks about is plural, or the question counts
// or pairs. A list question's fill spends its room on more distinct hits
// rather than on the neighbours of its best ones (Config.FocusFor).

// auxiliaries end the noun phrase that follows a question word: "What
// books | has Melanie read?".
var auxiliaries = map[string]bool{
	"do": true, "does": true, "did": true, "is": true, "was": true, "has": true, "have": true, "had": true,
	"can": true, "could": true, "would": true, "will": true, "might": true, "should": true, "may": true,
	"are": true, "were": true,
}

// AsksForList reports whether question asks for several things. It must
// read as a question (it ends with a question mark, or starts with a
// question word or an auxiliary: a subtask such as "Update both handlers"
// is not one), and it counts ("how many"), pairs ("both"), asks in the
// perfect ("where has she camped?", "what have they built?"), or its
// question word ("what", "which") asks about a plural, either the head of
// the noun phrase after it ("what books has…") or through a plural verb
// ("what are her plans").
func AsksForList(question string) bool {
	words := questionWords(question)
	if !readsAsQuestion(question, words) {
		return false
	}
	for i, w := range words {
		switch {
		case w == "both":
			return true
		case w == "how" && i+1 < len(words) && words[i+1] == "many":
			return true
		case (w == "what" || w == "where" || w == "who") && i+2 < len(words) && (words[i+1] == "has" || words[i+1] == "have"):
			// The perfect asks about every time up to now: "Where has
			// Melanie camped?", "What has she painted?"; "Where did she
			// camp?" asks about one.
			return true
		case w == "what" || w == "which":
			if listAfter(words[i+1:]) {
				return true
			}
		}
	}
	return false
}

// readsAsQuestion reports whether question, split into words, reads as a
// question: it ends with a question mark, or starts with a question word
// or an auxiliary. A subtask such as "Update both handlers" does not.
func readsAsQuestion(question string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	return strings.HasSuffix(strings.TrimSpace(question), "?") || questionStarts[words[0]] || auxiliaries[words[0]]
}

// questionStarts are the words a question in words starts with.
var questionStarts = map[string]bool{"what": true, "which": true, "who": true, "whom": true, "whose": true, "when": true, "where": true, "why": true, "how": true}

// subjects are the pronouns that make "what are …" a question about what
// someone is doing ("what are you working on?"), not about several things.
var subjects = map[string]bool{"i": true, "you": true, "we": true, "they": true}

// listAfter reads the words after a question word: a noun phrase of up to
// four words that ends at an auxiliary and whose head is plural ("what
// books | has", "what kind of activities | did", "what types of pottery |
// have"; not "which social media platform | did", whose head is the
// platform); or "are"/"were" straight after it ("what are her plans"). A
// verb such as "makes" in "what makes him" reads as a plural too, but no
// auxiliary follows it.
func listAfter(rest []string) bool {
	for j, w := range rest {
		if auxiliaries[w] {
			if j == 0 {
				return (w == "are" || w == "were") && len(rest) > 1 && !subjects[rest[1]]
			}
			return pluralHead(rest[:j])
		}
		if j == 4 {
			return false
		}
	}
	return false
}

// pluralHead reports whether a noun phrase's head is plural: its last
// word, or the word before "of" ("types of pottery").
func pluralHead(np []string) bool {
	if lexicon.Plural(np[len(np)-1]) {
		return true
	}
	for i := 1; i < len(np); i++ {
		if np[i] == "of" && lexicon.Plural(np[i-1]) {
			return true
		}
	}
	return false
}

// questionWords splits a question into lower-case words, possessive
// endings taken off ("maria's" is "maria", "dogs'" is "dogs").
func questionWords(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	out := fields[:0]
	for _, f := range fields {
		f = strings.ReplaceAll(f, "’", "'")
		if stem, ok := strings.CutSuffix(f, "'re"); ok { // "what're"
			out = append(out, stem, "are")
			continue
		}
		f = strings.TrimSuffix(f, "'s")
		f = strings.Trim(f, "'")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// FocusFor is how many of q's best hits come with their context: Focus,
// or for a question to memory answered by several turns (AsksForSeveral:
// a list, a judgment) the best one alone, so that the room goes to more
// of them.
func (c Config) FocusFor(q Query) int {
	if q.Fill && AsksForSeveral(q.Text()) {
		return min(c.Focus, 1)
	}
	return c.Focus
}
