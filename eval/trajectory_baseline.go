package eval

import "github.com/delta-memory/delta-memory/scoring"

// SystemBM25Steps is the baseline that ranks a trajectory's earlier steps
// by BM25 with the pending step's tool calls as the query.
const SystemBM25Steps = "bm25-steps"

// TrajectorySystems lists the systems a trajectories eval compares, in
// report order.
var TrajectorySystems = []string{SystemDelta, SystemRecent, SystemBM25Steps}

// StaticCap is the most of the budget the baselines give the static part
// (the system prompt and the task): the engine's rule for a static part
// too big for its share, "Static takes what it needs up to 40% of the
// budget". The rest is the room for steps.
const StaticCap = 0.40

// staticCost is what the static part takes of budget in a baseline's
// window, its tokens being staticTokens.
func staticCost(staticTokens, budget int) int {
	return min(staticTokens, int(StaticCap*float64(budget)))
}

// stepTokens counts each step's text, in full and pending, and the
// static part, once per run.
type stepTokens struct {
	full, pending []int
	static        int
}

func measure(tok scoring.Tokenizer, tr *trajectory) stepTokens {
	st := stepTokens{static: tok.Count(tr.static)}
	for i := range tr.texts {
		st.full = append(st.full, tok.Count(tr.texts[i]))
		st.pending = append(st.pending, tok.Count(tr.pending[i]))
	}
	return st
}

// baselineWindows builds, for probe p, the window of each baseline under
// budget: the pending step first, then earlier steps in full while they
// fit in what the static part leaves. recent takes the newest earlier
// steps and stops at the first that does not fit; bm25-steps takes the
// best ranked ones, skipping those that do not fit. The text is the steps
// in order; the tokens count the static part too.
func baselineWindows(tok scoring.Tokenizer, tr *trajectory, st stepTokens, p Probe, budget int) map[string]shown {
	t := p.Step
	// The steps before t and the pending step t, as the turns of a
	// dialogue, for fitTurns.
	d := Dialogue{Turns: make([]Turn, t)}
	lens := make([]int, t)
	for i := range t - 1 {
		d.Turns[i].Line, lens[i] = tr.texts[i], st.full[i]
	}
	d.Turns[t-1].Line, lens[t-1] = tr.pending[t-1], st.pending[t-1]
	static := staticCost(st.static, budget)
	room := budget - static
	out := map[string]shown{}
	recent := make([]int, t)
	for i := range recent {
		recent[i] = t - 1 - i
	}
	_, text, tokens := fitTurns(tok, &d, lens, recent, room, true)
	out[SystemRecent] = shown{text: text, tokens: static + tokens}
	query := words(callText(tr.steps[t-1].Calls))
	ranked := append([]int{t - 1}, tr.index.rank(query, t-1)...)
	_, text, tokens = fitTurns(tok, &d, lens, ranked, room, false)
	out[SystemBM25Steps] = shown{text: text, tokens: static + tokens}
	return out
}
