package scoring

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTitle is the longest milestone title, in runes.
const maxTitle = 60

// Building blocks of the milestone patterns.
const (
	msPhase = `(phase|step|stage)`
	msNum   = `(\d+|[ivx]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`
	msDone  = `(completed|complete|done|finished|wrapped\s+up|accomplished)`
	msBe    = `(?:(?:is|was|has\s+been|have\s+been|now|all|fully|officially)\s+)*`
	msSep   = `\s*(?:[:–—]|\s-)\s*`
	msName  = `((?:[\w'-]+\s+){0,4}?[\w'-]+)`
)

// milestonePattern is one way of declaring a phase done. done is the index
// of the submatch whose end closes the declaration (the text after it is a
// title, not part of the claim). title extracts the title from the
// submatches.
type milestonePattern struct {
	re    pattern
	done  int
	title func(s string, m []int) string
}

// sub returns submatch k of s, or "".
func sub(s string, m []int, k int) string {
	if 2*k+1 >= len(m) || m[2*k] < 0 {
		return ""
	}
	return s[m[2*k]:m[2*k+1]]
}

// phaseLabel renders "Phase 3" from the phase word and number submatches.
func phaseLabel(word, num string) string {
	r, size := utf8.DecodeRuneInString(word)
	return string(unicode.ToUpper(r)) + strings.ToLower(word[size:]) + " " + num
}

// milestonePatterns are tried in order on each sentence; the first match
// wins. Patterns that name the finished phase come before "moving on to".
var milestonePatterns = []milestonePattern{
	{ // Phase 2 completed: parser fixed. / Phase 12 (write the docs) is complete.
		re:   lazyPattern(`(?i)\b` + msPhase + `\s+` + msNum + `\b\s*(?:\(([^()]{1,80})\)\s*)?` + msBe + msDone + `\b(?:` + msSep + `(.+))?`),
		done: 4,
		title: func(s string, m []int) string {
			if t := sub(s, m, 3); t != "" {
				return t
			}
			if t := sub(s, m, 5); t != "" {
				return t
			}
			return phaseLabel(sub(s, m, 1), sub(s, m, 2))
		},
	},
	{ // Completed phase 3: tests green. / Done with step 2.
		re:   lazyPattern(`(?i)\b(completed|finished|done\s+with|wrapped\s+up|concluded|through\s+with)\s+` + msPhase + `\s+` + msNum + `\b\s*(?:\(([^()]{1,80})\))?(?:` + msSep + `(.+))?`),
		done: 3,
		title: func(s string, m []int) string {
			if t := sub(s, m, 4); t != "" {
				return t
			}
			if t := sub(s, m, 5); t != "" {
				return t
			}
			return phaseLabel(sub(s, m, 2), sub(s, m, 3))
		},
	},
	{ // Milestone: caching layer done. / Milestone reached: parser rewritten.
		re:    lazyPattern(`(?i)^[\W_]*(milestone(?:\s+(?:reached|achieved|complete|completed|done|hit))?)[*_]*` + msSep + `(.+)`),
		done:  1,
		title: func(s string, m []int) string { return sub(s, m, 2) },
	},
	{ // Reached a milestone: the parser is rewritten.
		re:    lazyPattern(`(?i)\b((?:reached|hit|achieved)\s+(?:a|the|another)?\s*milestone)` + msSep + `(.+)`),
		done:  1,
		title: func(s string, m []int) string { return sub(s, m, 2) },
	},
	{ // Milestone reached. (no title)
		re:    lazyPattern(`(?i)^[\W_]*(milestone\s+(?:reached|achieved|complete|completed|done|hit))\W*$`),
		done:  1,
		title: func(string, []int) string { return "Milestone" },
	},
	{ // Finished the reproduction step. / Done with the exploration phase.
		re:    lazyPattern(`(?i)\b(finished|completed|done\s+with|wrapped\s+up|concluded|through\s+with)\s+` + msName + `\s+` + msPhase + `\b`),
		done:  3,
		title: func(s string, m []int) string { return phaseName(sub(s, m, 2), sub(s, m, 3)) },
	},
	{ // The exploration phase is done. / Setup step complete.
		re:    lazyPattern(`(?i)\b` + msName + `\s+` + msPhase + `\s+` + msBe + msDone + `\b`),
		done:  3,
		title: func(s string, m []int) string { return phaseName(sub(s, m, 1), sub(s, m, 2)) },
	},
	{ // That's the exploration wrapped up.
		re:   lazyPattern(`(?i)\b(that(?:'|’)?s\s+(.{1,80}?)\s+(?:all\s+)?wrapped\s+up)\b`),
		done: 1,
		title: func(s string, m []int) string {
			name := sub(s, m, 2)
			word := ""
			if f := strings.Fields(name); len(f) > 1 {
				switch strings.ToLower(f[len(f)-1]) {
				case "phase", "step", "stage":
					word = f[len(f)-1]
					name = strings.Join(f[:len(f)-1], " ")
				}
			}
			return phaseName(name, word)
		},
	},
	{ // Moving on to documentation.
		re:   lazyPattern(`(?i)\b(moving\s+on\s+(?:now\s+)?to|(?:let's|let\s+us|now|time\s+to)\s+move\s+on\s+to)\s+(.+)`),
		done: 1,
		title: func(s string, m []int) string {
			next := sub(s, m, 2)
			if k := strings.IndexAny(next, ",;("); k > 0 {
				next = next[:k]
			}
			next = stripDeterminers(cleanTitle(next))
			if next == "" {
				return ""
			}
			return "before " + next
		},
	},
}

// negationRE finds words before a completion claim that deny it, make it
// conditional or put it in the future.
var negationRE = lazyPattern(`(?i)\b(?:not|never|yet\s+to|almost|nearly|before|until|unless|if|once|when|whether|should|will|would|could|might|going\s+to|need\s+to|needs\s+to|about\s+to|have\s+to|try\s+to)\b|n't\b|n’t\b`)

// questionRE matches sentences that open like a question.
var questionRE = lazyPattern(`(?i)^[\W_]*(?:is|are|was|were|has|have|had|did|do|does|should|can|could|will|would|shall)\s`)

// Milestone reports whether a thought declares a phase done and returns a
// short title for it. It recognises, case-insensitively and sentence by
// sentence:
//
//	Phase 2 completed: parser fixed.        → "parser fixed"
//	Phase 12 (write the docs) is complete.  → "write the docs"
//	Phase 3 done.                           → "Phase 3"
//	Completed phase 4: tests green.         → "tests green"
//	Milestone: caching layer done.          → "caching layer"
//	Milestone reached: parser rewritten.    → "parser rewritten"
//	Finished the reproduction step.         → "reproduction"
//	The exploration phase is done.          → "exploration"
//	That's the exploration wrapped up.      → "exploration"
//	Moving on to documentation.             → "before documentation"
//
// Phases may also be called steps or stages, numbered with digits, roman
// numerals or words up to twelve; "complete", "completed", "done",
// "finished", "wrapped up" and "accomplished" all close a phase. "Moving on
// to X" yields "before X" unless the same sentence names the phase just
// finished, which then wins.
//
// The title is the named phase, the parenthesised name, or the text after the
// colon, in that order of preference, cleaned: white space collapsed,
// surrounding punctuation and a trailing "done"/"complete"/"finished"
// removed, at most 60 runes.
//
// Not milestones: sentences without a phase, step, stage or milestone word
// ("done reading the file", "I finished the function", "the test is done");
// questions; and claims negated, conditional or in the future ("not done yet
// with phase 2", "once phase 2 is done", "before moving on to X"). The first
// sentence that declares a milestone decides.
func Milestone(thought string) (title string, ok bool) {
	for _, sent := range sentences(thought) {
		if !mayDeclare(sent) || strings.HasSuffix(sent, "?") || questionRE().MatchString(sent) {
			continue
		}
		for _, p := range milestonePatterns {
			m := p.re().FindStringSubmatchIndex(sent)
			if m == nil {
				continue
			}
			if negationRE().MatchString(sent[:m[2*p.done+1]]) {
				break // the claim is denied; later patterns would be too
			}
			t := cleanTitle(p.title(sent, m))
			if t == "" {
				continue
			}
			return t, true
		}
	}
	return "", false
}

// milestoneWords are words one of which each milestone pattern needs,
// lower-cased: a phase word, "milestone", "wrapped" (up), and "mov" for
// "move on" and "moving on".
var milestoneWords = []string{"phase", "step", "stage", "milestone", "wrapped", "mov"}

// mayDeclare reports whether a sentence could match a milestone pattern.
// An ASCII sentence without any of milestoneWords cannot; the patterns
// ignore case under Unicode's folding (the long s matches s), so a
// sentence with other characters is left to them. Most thoughts declare
// nothing, and then no pattern is compiled or run.
func mayDeclare(sent string) bool {
	for i := 0; i < len(sent); i++ {
		if sent[i] >= utf8.RuneSelf {
			return true
		}
	}
	lower := strings.ToLower(sent)
	for _, w := range milestoneWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// phaseName turns the words before "phase"/"step"/"stage" into a title: the
// words after the last determiner, without leading filler ("I think the
// exploration" → "exploration"). If no name is left, the determiner and the
// phase word are used ("this step").
func phaseName(words, phaseWord string) string {
	f := strings.Fields(words)
	start := 0
	for i, w := range f {
		if _, ok := determiners[strings.ToLower(w)]; ok {
			start = i + 1
		}
	}
	for start < len(f) {
		if _, ok := fillers[strings.ToLower(f[start])]; !ok {
			break
		}
		start++
	}
	if start == len(f) {
		if phaseWord == "" {
			return ""
		}
		return strings.TrimSpace(strings.Join(f[max(len(f)-1, 0):], " ") + " " + phaseWord)
	}
	return strings.Join(f[start:], " ")
}

// stripDeterminers removes leading determiners from a title.
func stripDeterminers(t string) string {
	f := strings.Fields(t)
	for len(f) > 1 {
		if _, ok := determiners[strings.ToLower(f[0])]; !ok {
			break
		}
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// determiners introduce the name of a phase.
var determiners = set(`the this that my our its their a an`)

// fillers are words that precede a phase name in a thought without being
// part of it.
var fillers = set(`i we i've we've think guess believe so okay ok alright
	well now then and finally great good looks like it seems also just
	officially basically actually with`)

// cleanTitle collapses white space, trims surrounding punctuation, removes
// a trailing completion word and cuts the title to maxTitle runes.
func cleanTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	const punct = ".,;:!?\"'`*()[]{}<>-–—…"
	t = strings.Trim(t, punct+" ")
	lower := strings.ToLower(t)
	for _, suffix := range []string{" is done", " is complete", " is finished", " done", " complete",
		" completed", " finished", " wrapped up"} {
		if strings.HasSuffix(lower, suffix) && len(t) > len(suffix) {
			t = strings.Trim(t[:len(t)-len(suffix)], punct+" ")
			break
		}
	}
	if utf8.RuneCountInString(t) > maxTitle {
		i, n := 0, 0
		for n < maxTitle {
			_, size := utf8.DecodeRuneInString(t[i:])
			i += size
			n++
		}
		t = strings.Trim(t[:i], punct+" ")
	}
	return t
}

// sentences splits text into sentences at line breaks and at '.', '!' or
// '?' followed by white space or the end. Terminal '?' is kept so questions
// can be recognised; other terminators are dropped.
func sentences(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			if i+1 < len(line) && !isSpaceByte(line[i+1]) {
				continue
			}
			end := i
			if c == '?' {
				end = i + 1
			}
			if s := strings.TrimSpace(line[start:end]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
