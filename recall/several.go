package recall

// Judgment questions. "Would Caroline pursue writing as a career?", "What
// might John's financial status be?", "Is Melanie likely to enjoy
// Vivaldi?" ask for what the run suggests rather than what it says: no
// turn answers them in their words, and the answer is weighed from
// several things the run tells of its subject (what they did, said they
// like, said they plan), each in a turn of its own. Such a question is
// answered as a list question is, by turns spread over the run rather
// than by one turn and its exchange, so its fill spends its room the same
// way (AsksForSeveral). A modal addressed to the one asked ("would you
// remind me…", "might you know…") is a request, not a judgment, and so is
// the asker's own wish ("I would like…").

// judgmentWords are the words that make a question ask for a judgment:
// the modal auxiliaries of what would or might be, and the adverbs of
// likelihood. "Could" is left out: "could you…" is how a request is put,
// and "could she…" as often asks what someone was able to do.
var judgmentWords = map[string]bool{"would": true, "might": true, "likely": true, "probably": true}

// wishVerbs follow "I would" or "we would" in a wish ("I would like…").
var wishVerbs = map[string]bool{"like": true, "love": true, "appreciate": true}

// AsksJudgment reports whether question asks for a judgment: it reads as
// a question (as AsksForList requires) and holds a modal of what would or
// might be, or an adverb of likelihood, that is neither addressed to "you"
// nor the asker's wish.
func AsksJudgment(question string) bool {
	words := questionWords(question)
	if !readsAsQuestion(question, words) {
		return false
	}
	for i, w := range words {
		if !judgmentWords[w] {
			continue
		}
		next, prev := "", ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		if i > 0 {
			prev = words[i-1]
		}
		if next == "you" || (prev == "i" || prev == "we") && wishVerbs[next] {
			continue
		}
		return true
	}
	return false
}

// AsksForSeveral reports whether question is answered by several turns
// spread over the run, each as likely as the next to hold part of the
// answer: a list question (AsksForList) or a judgment (AsksJudgment). A
// fill for one keeps its best hit in focus (FocusFor) and spreads the rest
// of its room over more hits. A comparison ("the bike or the car?") is
// not one: it needs a turn for each of two things, and the eighth of the
// room a list's items keep left out the second of them.
func AsksForSeveral(question string) bool {
	return AsksForList(question) || AsksJudgment(question)
}
