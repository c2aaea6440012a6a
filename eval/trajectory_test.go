package eval

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// TestTrajectoriesMini evaluates miniTranscript four times over (tau-bench's
// shape) and a chat without tool calls, with cross-validation. At 4,000
// tokens the whole run fits: every system holds every probe.
func TestTrajectoriesMini(t *testing.T) {
	t.Parallel()
	ts, err := parseTranscripts("mini.json", []byte(tauArray(4)))
	if err != nil {
		t.Fatal(err)
	}
	chat, err := parseTranscripts("chat.json", []byte(`[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`))
	if err != nil {
		t.Fatal(err)
	}
	ts = append(chat, ts...)
	var last Progress
	calls := 0
	opts := TrajectoryOptions{Options: Options{CrossValidate: true, Progress: func(p Progress) {
		calls++
		if p.Done != last.Done+1 || p.Total < p.Done {
			t.Errorf("progress %+v after %+v", p, last)
		}
		last = p
	}}, Budgets: []int{4000, 1000}}
	rep, err := Trajectories(context.Background(), ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 4 || rep.Steps != 36 || rep.Probes != 16 || rep.Skipped != 4 || !slices.Equal(rep.WithoutToolCalls, []string{"chat.json"}) {
		t.Errorf("runs %d, steps %d, probes %d, skipped %d, without tool calls %q; want 4, 36, 16, 4, [chat.json]",
			rep.Runs, rep.Steps, rep.Probes, rep.Skipped, rep.WithoutToolCalls)
	}
	// (4,1) and (6,2) reach 3 and 4 steps back, (5,3) and (6,4) 2.
	if want := map[string]int{"2-3": 12, "4-7": 4}; !maps.Equal(rep.ProbesByDistance, want) {
		t.Errorf("probes by distance %v, want %v", rep.ProbesByDistance, want)
	}
	// Each run is replayed once per budget, and once more per candidate.
	if want := 36 * 2 * (1 + len(FoldCandidates)); calls != want || last.Total != want {
		t.Errorf("%d progress calls (total %d), want %d", calls, last.Total, want)
	}
	if len(rep.ByBudget) != 2 || rep.ByBudget[0].Budget != 4000 || rep.ByBudget[1].Budget != 1000 {
		t.Fatalf("budgets: %+v", rep.ByBudget)
	}
	for _, b := range rep.ByBudget {
		for _, sys := range TrajectorySystems {
			s, ok := b.Systems[sys]
			if !ok || s.Probes != 16 || s.MeanTokens <= 0 || s.MeanTokens > float64(b.Budget) || len(s.ByDistance) != len(DistanceBuckets) {
				t.Errorf("%d tokens, %s: %+v", b.Budget, sys, s)
			}
			if b.Budget == 4000 && s.Held != 16 {
				t.Errorf("at 4000 tokens the whole run fits, but %s holds %d of 16", sys, s.Held)
			}
		}
	}
	cv := rep.CrossValidation
	if cv == nil || len(cv.Folds) != trajFolds || len(cv.ByBudget) != 2 {
		t.Fatalf("cross-validation: %+v", cv)
	}
	for _, f := range cv.Folds {
		if f.Runs != 1 || f.Probes != 4 || !strings.HasPrefix(f.Held, "runs ") {
			t.Errorf("fold %+v: want one run, 4 probes", f)
		}
	}
	if d := cv.ByBudget[0].Systems[SystemDelta]; d.Probes != 16 || d.Held != 16 {
		t.Errorf("held out at 4000 tokens: %+v", d)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"4 runs, 36 steps, 16 probes (4 more left out: no evidence term)", "  4000 delta            16     16  1.000",
		"transcripts left out, no tool call: 1 (chat.json)", "cross-validated", "delta (cv)"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
	t.Logf("\n%s", text.String())
}

// TestTrajectoryJSONShape: the JSON names stay as documented.
// TestTrajectoriesWithoutToolCallsIsAnError: transcripts none of which
// calls a tool have nothing to probe; a report of zeros would read as a
// result.
func TestTrajectoriesWithoutToolCallsIsAnError(t *testing.T) {
	t.Parallel()
	chat, err := parseTranscripts("chat.json", []byte(`[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Trajectories(context.Background(), chat, TrajectoryOptions{}); err == nil || !strings.Contains(err.Error(), "no transcript calls a tool") {
		t.Errorf("a transcript without tool calls: %+v, %v", rep, err)
	}
}

func TestTrajectoryJSONShape(t *testing.T) {
	t.Parallel()
	var c revisitCount
	c.add(Probe{Step: 5, Source: 1}, outcome{held: true, tokens: 100})
	c.add(Probe{Step: 5, Source: 4}, outcome{tokens: 300})
	b, err := json.Marshal(BudgetRevisit{Budget: 2000, Systems: map[string]SystemRevisit{SystemDelta: c.result()}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"budget":2000,"systems":{"delta":{"held":1,"probes":2,"rate":0.5,"mean_tokens":200,"by_distance":{"1":{"held":0,"probes":1,"rate":0},` +
		`"16+":{"held":0,"probes":0,"rate":0},"2-3":{"held":0,"probes":0,"rate":0},"4-7":{"held":1,"probes":1,"rate":1},"8-15":{"held":0,"probes":0,"rate":0}}}}}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
}

// TestCrossValidateRuns: each part of the runs is reported with the
// candidate that did best on the other parts, not on itself.
func TestCrossValidateRuns(t *testing.T) {
	t.Parallel()
	// Eight runs of two probes each, parts r mod 4; one budget.
	runs := make([]*trajectory, 8)
	for r := range runs {
		runs[r] = &trajectory{name: string(rune('a' + r)), probes: []Probe{{Step: 2, Source: 1}, {Step: 9, Source: 1}}}
	}
	outcomes := func(held func(r int) int) []runOutcomes {
		out := make([]runOutcomes, len(runs))
		for r := range runs {
			os := []outcome{{held: held(r) > 0}, {held: held(r) > 1}}
			out[r] = runOutcomes{{SystemDelta: os}}
		}
		return out
	}
	// Candidate 0 holds both probes of part 0's runs and nothing else;
	// candidate 1 one probe of every run.
	cand := [][]runOutcomes{
		outcomes(func(r int) int { return 2 * btoi(r%4 == 0) }),
		outcomes(func(int) int { return 1 }),
	}
	cv := crossValidateRuns(runs, cand, []int{1000})
	for f, fd := range cv.Folds {
		// Part 0 is held out: on the others candidate 0 holds nothing.
		// Any other part: candidate 0 holds 4 of 12 (parts 0 and two
		// more), candidate 1 6 of 12.
		if fd.Chosen != FoldCandidates[1].Name || fd.Runs != 2 || fd.Probes != 4 || fd.Test != 0.5 {
			t.Errorf("fold %d: %+v", f, fd)
		}
	}
	if d := cv.ByBudget[0].Systems[SystemDelta]; d.Held != 8 || d.Probes != 16 {
		t.Errorf("pooled: %+v", d)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPendingWindowHasNoResult: the pending step, as every system shows
// it, has the step's calls and none of their results.
func TestPendingWindowHasNoResult(t *testing.T) {
	t.Parallel()
	tr := miniTrajectory(t)
	pend := tr.pending[5]
	if !strings.Contains(pend, "config/settings.yaml") || !strings.Contains(pend, "src/parser.py") || strings.Contains(pend, "mode: strict") {
		t.Errorf("pending step 6:\n%s", pend)
	}
	events := tr.steps[5].Events
	if cut := pendingCut(events); cut != 1 || events[cut].Type != journal.TypeActionResult {
		t.Errorf("step 6 cut at %d of %d events", cut, len(events))
	}
}

// TestBaselineWindows: the pending step always comes first; recent then
// takes the newest steps, bm25-steps the one that ran the same command.
func TestBaselineWindows(t *testing.T) {
	t.Parallel()
	tr := miniTrajectory(t)
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	st := measure(tok, tr)
	p := tr.probes[1] // (5,3): step 5 runs pytest as step 3 did
	// Room for the pending step and one of steps 3 and 4, not both.
	room := st.pending[4] + max(st.full[2], st.full[3]) + 3
	budget := st.static + room
	if staticCost(st.static, budget) != st.static {
		t.Fatalf("the static part (%d tokens) should fit its cap at %d", st.static, budget)
	}
	w := baselineWindows(tok, tr, st, p, budget)
	recent, bm := w[SystemRecent], w[SystemBM25Steps]
	// Steps are joined in order, a line apart.
	if recent.text != tr.texts[3]+"\n"+tr.pending[4]+"\n" {
		t.Errorf("recent at %d tokens:\n%s", budget, recent.text)
	}
	if bm.text != tr.texts[2]+"\n"+tr.pending[4]+"\n" {
		t.Errorf("bm25-steps at %d tokens:\n%s", budget, bm.text)
	}
	for sys, sh := range w {
		if sh.tokens > budget || sh.tokens != st.static+tok.Count(sh.text) {
			t.Errorf("%s: %d tokens, budget %d", sys, sh.tokens, budget)
		}
	}
	if p.holds(wordSet(recent.text)) || !p.holds(wordSet(bm.text)) {
		t.Error("recent should miss step 3, bm25-steps hold it")
	}
	// The static part takes at most StaticCap of the budget.
	if got := staticCost(1000, 1000); got != 400 {
		t.Errorf("staticCost(1000, 1000) = %d, want 400", got)
	}
}

// TestBaselineStepsAreShownAsTheEngineShowsThem: the baselines' text of a
// step holds its JSON output compacted, as the engine's window does, so a
// step costs every system the same; the journal's iteration is left as it
// came.
func TestBaselineStepsAreShownAsTheEngineShowsThem(t *testing.T) {
	t.Parallel()
	const spaced = `{"reservation_id": "MSJ4OA", "flights": [{"flight_number": "HAT099", "price": 176}]}`
	it := &journal.Iteration{Number: 2, Status: journal.IterOK, Calls: []journal.ToolCall{{
		Name: "get_reservation_details", Args: []byte(`{"reservation_id":"MSJ4OA"}`),
		Result: &journal.ToolResult{Status: journal.StatusSuccess, Output: spaced},
	}}}
	tr := newTrajectory("one", journal.FormatDelta, journal.Run{}, nil, []*journal.Iteration{it})
	want := `{"reservation_id":"MSJ4OA","flights":[{"flight_number":"HAT099","price":176}]}`
	if !strings.Contains(tr.texts[0], want+"\n") {
		t.Errorf("the baselines' step text does not hold the output compacted:\n%s\nwant %s", tr.texts[0], want)
	}
	if it.Calls[0].Result.Output != spaced {
		t.Errorf("the journal's iteration changed: %q", it.Calls[0].Result.Output)
	}
}

// TestTrajectoryProbeResults collects the per-probe results (--questions)
// of a trajectories eval at two budgets: one per probe and budget, each
// system's found terms in the probe's evidence, held exactly when they
// reach its need, and the held ones adding up to the report's counts.
func TestTrajectoryProbeResults(t *testing.T) {
	t.Parallel()
	ts, err := parseTranscripts("mini.json", []byte(tauArray(2)))
	if err != nil {
		t.Fatal(err)
	}
	var got []ProbeResult
	opts := TrajectoryOptions{Options: Options{Probe: func(p ProbeResult) { got = append(got, p) }}, Budgets: []int{4000, 1000}}
	rep, err := Trajectories(context.Background(), ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*rep.Probes {
		t.Fatalf("%d probe results, want %d (%d probes at 2 budgets)", len(got), 2*rep.Probes, rep.Probes)
	}
	held := map[int]map[string]int{}
	for _, p := range got {
		if p.Run == "" || p.Step <= p.Source || p.Needed != (len(p.Evidence)+1)/2 || p.Distance != DistanceBuckets[distanceBucket(p.Step-p.Source)] {
			t.Errorf("probe result %+v: run, steps, need or distance wrong", p)
		}
		if held[p.Budget] == nil {
			held[p.Budget] = map[string]int{}
		}
		for _, sys := range TrajectorySystems {
			found, ok := p.Found[sys]
			if !ok || p.Tokens[sys] <= 0 || p.Tokens[sys] > p.Budget {
				t.Errorf("probe %d of %s at %d: system %s missing or its tokens %d out of range", p.Step, p.Run, p.Budget, sys, p.Tokens[sys])
			}
			for _, w := range found {
				if !slices.Contains(p.Evidence, w) {
					t.Errorf("probe %d of %s: %s found %q, not an evidence term", p.Step, p.Run, sys, w)
				}
			}
			if p.Held[sys] != (len(found) >= p.Needed) {
				t.Errorf("probe %d of %s at %d: %s found %d of %d needed, held %v", p.Step, p.Run, p.Budget, sys, len(found), p.Needed, p.Held[sys])
			}
			if p.Held[sys] {
				held[p.Budget][sys]++
			}
		}
	}
	for _, b := range rep.ByBudget {
		for _, sys := range TrajectorySystems {
			if held[b.Budget][sys] != b.Systems[sys].Held {
				t.Errorf("at %d, %s held %d probes in the results, %d in the report", b.Budget, sys, held[b.Budget][sys], b.Systems[sys].Held)
			}
		}
	}
}
