package eval

import "slices"

// QuestionResult is what each system put in front of the agent for one
// question: which of its evidence turns were in the context, and the
// context's size. An eval gives one per question to Options.Question, for
// reading misses one by one.
type QuestionResult struct {
	// Run is the conversation (LoCoMo) or question id (LongMemEval).
	Run string `json:"run"`
	// Group is the question's category or type.
	Group    string `json:"group"`
	Question string `json:"question"`
	// Evidence lists the evidence turns' ids.
	Evidence []string `json:"evidence"`
	// Found lists, per system, the evidence turns whose whole line was in
	// its context.
	Found map[string][]string `json:"found"`
	// Tokens is each system's context size.
	Tokens map[string]int `json:"tokens"`
	// Ranks gives, per system with a ranking, each evidence turn's place
	// in it (1 is first; 0, not ranked).
	Ranks map[string][]int `json:"ranks,omitempty"`
	// Sessions, for LongMemEval, lists per system the first five sessions
	// of its ranking; Answer the question's answer sessions.
	Sessions map[string][]string `json:"sessions,omitempty"`
	Answer   []string            `json:"answer_sessions,omitempty"`
	// Contexts is, per system, the context it built, as the evidence was
	// looked for in it; only with Options.Contexts.
	Contexts map[string]string `json:"contexts,omitempty"`
}

// questionResult reads one question's contexts.
func (d *Dialogue) questionResult(group, question string, evidence []int, s map[string]shown) QuestionResult {
	qr := QuestionResult{Run: d.ID, Group: group, Question: question, Found: map[string][]string{}, Tokens: map[string]int{}}
	for _, i := range evidence {
		qr.Evidence = append(qr.Evidence, d.Turns[i].ID)
	}
	for sys, sh := range s {
		text := normalize(sh.text)
		found := []string{}
		for _, i := range evidence {
			if d.present(text, []int{i}) == 1 {
				found = append(found, d.Turns[i].ID)
			}
		}
		qr.Found[sys], qr.Tokens[sys] = found, sh.tokens
		if len(sh.ranked) == 0 {
			continue
		}
		if qr.Ranks == nil {
			qr.Ranks = map[string][]int{}
		}
		for _, i := range evidence {
			qr.Ranks[sys] = append(qr.Ranks[sys], slices.Index(sh.ranked, i)+1)
		}
	}
	return qr
}

// contextTexts returns each system's context text for a result's
// Contexts, or nil unless opts asks for them.
func contextTexts(opts Options, s map[string]shown) map[string]string {
	if !opts.Contexts {
		return nil
	}
	out := make(map[string]string, len(s))
	for sys, sh := range s {
		out[sys] = sh.text
	}
	return out
}

// topSessions lists the first n sessions of a ranking.
func (d *Dialogue) topSessions(sh shown, n int) []string {
	var out []string
	for _, i := range sh.ranked {
		out = append(out, d.Turns[i].Session)
	}
	out = Dedup(out)
	return out[:min(n, len(out))]
}
