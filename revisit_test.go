package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// toolStep is one OpenAI-format step: a call and, unless pending, its result.
func toolStep(n int, name, args, result string, pending bool) []map[string]any {
	id := fmt.Sprintf("call_%d", n)
	call := map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	msgs := []map[string]any{{"role": "assistant", "content": nil, "tool_calls": []any{call}}}
	if !pending {
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": result})
	}
	return msgs
}

// TestRevisitRecallsTheEarlierOutput: a call that takes again a value an
// earlier call took (a date here, which is no entity, also nested in a list
// of flights; a booking code) brings that earlier call back with its output
// once it is folded, into the room the window has, so that the agent sees
// what it saw then. The window is built at the pending call, as an agent
// gets it.
func TestRevisitRecallsTheEarlierOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args, want string
	}{
		{"a date", `{"origin":"DEN","destination":"IAH","date":"2024-06-03"}`, "HAT999 departs 07:15 from gate B17"},
		{"a booking code", `{"reservation_id":"QX7ZP2"}`, "seat 14C, aisle, meal kosher"},
		// The date nested in a list of flights, as a booking tool takes it.
		{"a nested date", `{"reservation_id":"ZZ0000","flights":[{"flight_number":"HAT998","date":"2024-06-03"}]}`, "HAT999 departs 07:15 from gate B17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := []map[string]any{{"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "Change my booking."}}
			msgs = append(msgs, toolStep(1, "search_direct_flight", `{"origin":"DEN","destination":"IAH","date":"2024-06-03"}`,
				`[{"flight_number": "HAT999", "note": "HAT999 departs 07:15 from gate B17"}]`, false)...)
			msgs = append(msgs, toolStep(2, "get_reservation_details", `{"reservation_id":"QX7ZP2"}`,
				`{"reservation_id": "QX7ZP2", "passengers": 1, "detail": "seat 14C, aisle, meal kosher"}`, false)...)
			for i := 3; i <= 24; i++ {
				msgs = append(msgs, toolStep(i, "lookup_policy", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(100+i, 120), false)...)
			}
			msgs = append(msgs, toolStep(25, "update_reservation", tc.args, "", true)...)
			if _, got := revisitWindow(t, 2000, msgs, 2); !strings.Contains(got, tc.want) || !strings.Contains(got, "you named") {
				t.Fatalf("the pending call did not bring back the earlier output %q; Retrieved:\n%s", tc.want, got)
			}
		})
	}
}

// TestARevisitGetsTheCallThatTookTheValue: the agent read a booking, then
// restated its code in a reply. When a later call takes the code again,
// both earlier steps match it as strongly (an identifier the call acts
// on; the value the earlier call took), and the call that read the
// booking is recalled first: when the room runs out, the recall made last
// at a step is the one that leaves, and the reply only named the code.
func TestARevisitGetsTheCallThatTookTheValue(t *testing.T) {
	t.Parallel()
	msgs := []map[string]any{{"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "Change my booking."}}
	msgs = append(msgs, toolStep(1, "get_reservation_details", `{"reservation_id":"QX7ZP2"}`,
		`{"reservation_id": "QX7ZP2", "passengers": 1, "detail": "seat 14C, aisle, meal kosher"}`, false)...)
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "I found reservation QX7ZP2. " + prose(77, 60)})
	for i := 3; i <= 24; i++ {
		msgs = append(msgs, toolStep(i, "lookup_policy", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(100+i, 120), false)...)
	}
	msgs = append(msgs, toolStep(25, "update_reservation", `{"reservation_id":"QX7ZP2"}`, "", true)...)
	made := madeByPending(t, importAgent(t, 2000, msgs))
	if len(made) != 2 || made[0].First != 1 || made[1].First != 2 {
		t.Fatalf("the pending call made recalls %+v; want iteration 1 (the call that took the code), then 2 (the reply that named it)", made)
	}
}

// TestARevisitGetsTheLatestRead: a file read alone eight times and then
// once more beside a listing is read again; the recall the pending call
// makes is of the latest read, which shows what the file holds now, not of
// an older one whose step named the file alone.
func TestARevisitGetsTheLatestRead(t *testing.T) {
	t.Parallel()
	msgs := []map[string]any{{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Fix the config loader."}}
	for i := 1; i <= 8; i++ {
		msgs = append(msgs, toolStep(i, "read_file", `{"path":"src/app/config.py"}`, fmt.Sprintf("TIMEOUT = %d\n", i), false)...)
	}
	calls := []any{
		map[string]any{"id": "call_9a", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"src/app/config.py"}`}},
		map[string]any{"id": "call_9b", "type": "function", "function": map[string]any{"name": "list_dir", "arguments": `{"path":"src/app"}`}},
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": calls},
		map[string]any{"role": "tool", "tool_call_id": "call_9a", "content": "TIMEOUT = 90\n"},
		map[string]any{"role": "tool", "tool_call_id": "call_9b", "content": "config.py\nloader.py\n"})
	msgs = append(msgs, lookups(10, 34, 300)...)
	msgs = append(msgs, toolStep(35, "read_file", `{"path":"src/app/config.py"}`, "", true)...)
	made := slices.DeleteFunc(madeByPending(t, importAgent(t, 2000, msgs)), func(r recall.Recall) bool {
		return !strings.EqualFold(r.Query, "src/app/config.py")
	})
	if len(made) == 0 || made[0].First != 9 {
		t.Fatalf("the pending read made recalls %+v for the file; want iteration 9, its latest read, first", made)
	}
}

// TestWhatTheCallTakesAgainComesFirst: a step whose thought names two
// files written long ago, and whose call runs again a command a folded
// step ran, recalls that step first: the call acts on it now, the thought
// only talks about the files, however strongly their writes match.
func TestWhatTheCallTakesAgainComesFirst(t *testing.T) {
	t.Parallel()
	msgs := []map[string]any{{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Make the checks pass."}}
	msgs = append(msgs, toolStep(1, "write_file", `{"path":"src/app/alpha.py","content":"A = 1\n"}`, "written", false)...)
	msgs = append(msgs, toolStep(2, "write_file", `{"path":"src/app/beta.py","content":"B = 2\n"}`, "written", false)...)
	msgs = append(msgs, toolStep(3, "run_shell", `{"command":"make check"}`, "lint clean\nALL CHECKS PASSED in 4.2s\n", false)...)
	msgs = append(msgs, lookups(4, 30, 400)...)
	pending := toolStep(31, "run_shell", `{"command":"make check"}`, "", true)
	pending[0]["content"] = "I changed src/app/alpha.py and src/app/beta.py earlier; running the checks again."
	msgs = append(msgs, pending...)
	made := slices.DeleteFunc(madeByPending(t, importAgent(t, 2000, msgs)), func(r recall.Recall) bool {
		return r.Reason != recall.ReasonImplicit
	})
	if len(made) == 0 || made[0].First != 3 {
		t.Fatalf("the pending call made recalls %+v; want iteration 3 (the command it runs again) first", made)
	}
}

// TestALongCommandRunAgainIsARevisit: a shell command longer than a short
// identifier (a test run with its options), run again once the step that
// ran it is folded, brings that step back: a command line is what the call
// acts on, however long, and it names no path for an entity to match.
func TestALongCommandRunAgainIsARevisit(t *testing.T) {
	t.Parallel()
	const command = "python -m pytest -q -k latency --maxfail 1 --durations 5 --timeout 300 --color no --tb short -rA"
	if len(command) <= 64 {
		t.Fatalf("the command has %d characters; the test needs more than 64", len(command))
	}
	msgs := []map[string]any{{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Make the latency tests pass."}}
	msgs = append(msgs, toolStep(1, "run_shell", fmt.Sprintf(`{"command":%q}`, command), "3 failed, 9 passed\nslowest: test_bucket_edges 2.31s\n", false)...)
	msgs = append(msgs, lookups(2, 30, 500)...)
	msgs = append(msgs, toolStep(31, "run_shell", fmt.Sprintf(`{"command":%q}`, command), "", true)...)
	made := madeByPending(t, importAgent(t, 2000, msgs))
	if !slices.ContainsFunc(made, func(r recall.Recall) bool { return r.First == 1 }) {
		t.Fatalf("running the command again did not bring back iteration 1; it made %+v", made)
	}
}

func partitionText(cx *window.Context, name string) string {
	var b strings.Builder
	for _, s := range partitionOf(cx, name).Sections {
		b.WriteString(s.Name + "\n" + s.Content + "\n")
	}
	return b.String()
}

// TestARevisitedOutputShowsWhole: the output of a step the pending call
// returns to shows whole while it takes at most half of what a recall may
// (fold.Config.RecallReach), not cut to its head and tail by the smaller
// Retrieved share: a reservation's flights stand in the middle of it.
func TestARevisitedOutputShowsWhole(t *testing.T) {
	t.Parallel()
	output := reservation(6)
	cfg := fold.DefaultConfig(4000)
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count(output); n <= cfg.RetrievedBudget()/2 || n >= cfg.RecallReach()/4 {
		t.Fatalf("the output counts %d tokens; the test needs it over half the Retrieved share (%d) and under a quarter of the recalls' reach (%d)",
			n, cfg.RetrievedBudget()/2, cfg.RecallReach()/4)
	}
	msgs := cancelAfterLookups(output, 120)
	_, got := revisitWindow(t, 4000, msgs, 1)
	if !strings.Contains(got, "you named MSJ4OA") {
		t.Fatalf("the pending call did not bring back the reservation; Retrieved:\n%s", got)
	}
	if strings.Contains(got, "[output truncated") || !strings.Contains(got, `"flight_number":"HAT093"`) {
		t.Errorf("the reservation's output was cut; Retrieved:\n%s", got)
	}
}

// cancelAfterLookups is an airline agent's run: a reservation read (its
// output output), 29 policy lookups of words words each, and a pending call
// that cancels the reservation, returning to the first step.
func cancelAfterLookups(output string, words int) []map[string]any {
	msgs := []map[string]any{{"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "Cancel my trip."}}
	msgs = append(msgs, toolStep(1, "get_reservation_details", `{"reservation_id":"MSJ4OA"}`, output, false)...)
	for i := 2; i <= 30; i++ {
		msgs = append(msgs, toolStep(i, "lookup_policy", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(200+i, words), false)...)
	}
	return append(msgs, toolStep(31, "cancel_reservation", `{"reservation_id":"MSJ4OA"}`, "", true)...)
}

// revisitWindow imports msgs (OpenAI messages, the last step's call
// pending) into a fresh engine under budget (importAgent), checks that step folded is
// folded and that the window holds the budget, and returns the window
// built at the pending call and its Retrieved text.
func revisitWindow(t *testing.T, budget int, msgs []map[string]any, folded int) (*window.Context, string) {
	t.Helper()
	eng := importAgent(t, budget, msgs)
	cx := contextOf(t, eng)
	if strings.Contains(partitionText(cx, window.Working), fmt.Sprintf("#### Iteration %d (", folded)) {
		t.Fatalf("iteration %d is not folded; the test needs it folded:\n%s", folded, cx.Markdown())
	}
	if cx.Tokens > cx.Budget {
		t.Fatalf("window %d tokens over the budget %d", cx.Tokens, cx.Budget)
	}
	return cx, partitionText(cx, window.Retrieved)
}

// TestARevisitedOutputTakesWhatTheWindowLeaves: at 2,000 tokens a recalled
// output is bounded at 125 tokens, and a reservation of seven flights
// shows its head and tail only. When the step the agent is at names it,
// the recall takes what the window leaves once Working is fitted, and the
// flights in the middle show.
func TestARevisitedOutputTakesWhatTheWindowLeaves(t *testing.T) {
	t.Parallel()
	output := reservation(7)
	const budget = 2000
	cfg := fold.DefaultConfig(budget)
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count(output); n <= cfg.RecallReach()/4 || n >= cfg.OutputCap() {
		t.Fatalf("the output counts %d tokens; the test needs it over a recalled output's bound (%d) and under Working's (%d)",
			n, cfg.RecallReach()/4, cfg.OutputCap())
	}
	msgs := cancelAfterLookups(output, 40)
	cx, got := revisitWindow(t, budget, msgs, 1)
	if !strings.Contains(got, "you named MSJ4OA") {
		t.Fatalf("the pending call did not bring back the reservation; Retrieved:\n%s", got)
	}
	if strings.Contains(got, "[output truncated") || !strings.Contains(got, `"flight_number":"HAT094"`) {
		t.Errorf("the reservation's output was cut though the window had room (%d of %d tokens); Retrieved:\n%s", cx.Tokens, cx.Budget, got)
	}
}

// reservation is a tau-bench-like reservation of n flights, as a
// get_reservation_details output: one JSON document.
func reservation(n int) string {
	var flights []string
	for i := 1; i <= n; i++ {
		flights = append(flights, fmt.Sprintf(`{"origin":"DFW","destination":"SEA","flight_number":"HAT%03d","date":"2024-05-%02d","price":%d}`, 90+i, 10+i, 170+i))
	}
	return `{"reservation_id":"MSJ4OA","user_id":"amelia_davis_8890","cabin":"economy","flights":[` + strings.Join(flights, ",") +
		`],"passengers":[{"first_name":"Anya","last_name":"Brown"}],"insurance":"yes"}`
}

// TestAWiderRecallLeavesTheNativeIterationsTheirRoom: when the caller shows
// the newest iterations itself (sync's --keep-recent), they are sent with
// the memory file, and what they take is not the window's to give: a
// recalled output widens only into what is left beside them.
func TestAWiderRecallLeavesTheNativeIterationsTheirRoom(t *testing.T) {
	t.Parallel()
	const budget, native = 2000, 5
	ctx := context.Background()
	msgs := []map[string]any{{"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "Cancel my trip."}}
	msgs = append(msgs, toolStep(1, "get_reservation_details", `{"reservation_id":"MSJ4OA"}`, reservation(7), false)...)
	for i := 2; i <= 30; i++ {
		words := 40
		if i > 30-native {
			words = 260 // the steps the caller shows itself
		}
		msgs = append(msgs, toolStep(i, "lookup_policy", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(200+i, words), false)...)
	}
	msgs = append(msgs, toolStep(31, "cancel_reservation", `{"reservation_id":"MSJ4OA"}`, "", true)...)
	eng := importAgent(t, budget, msgs)
	run, err := eng.ResolveRun(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{Native: native})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := eng.Fold.Notes(ctx, run.ID, run.Iterations-native+1, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, n := range notes {
		shown += max(n.RawTokens, n.L0Tokens)
	}
	got := partitionText(cx, window.Retrieved)
	if !strings.Contains(got, "you named MSJ4OA") {
		t.Fatalf("the pending call did not bring back the reservation; Retrieved:\n%s", got)
	}
	wide := !strings.Contains(got, "[output truncated")
	if wide && cx.Tokens+shown > budget {
		t.Errorf("the recall widened into the room of the caller's newest iterations: memory file %d + newest %d tokens, budget %d", cx.Tokens, shown, budget)
	}
	if shown < budget/2 {
		t.Fatalf("the test needs the caller's newest iterations to take half the budget; they take %d tokens", shown)
	}
}

// importAgent imports msgs (OpenAI messages) as run "agent" into a fresh
// engine under budget, closed when the test ends.
func importAgent(t *testing.T, budget int, msgs []map[string]any) *memory.Engine {
	t.Helper()
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	data, _ := json.Marshal(msgs)
	events, err := journal.OpenAIEvents("agent.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.Append(ctx, "agent", events...); err != nil {
		t.Fatal(err)
	}
	return eng
}

// madeByPending returns the recalls the run's last iteration made (or
// refreshed into being), in the order they were made.
func madeByPending(t *testing.T, eng *memory.Engine) []recall.Recall {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	active, err := eng.Recall.Active(ctx, run.ID, run.Iterations)
	if err != nil {
		t.Fatal(err)
	}
	var made []recall.Recall
	for _, r := range active {
		if r.Since == run.Iterations {
			made = append(made, r)
		}
	}
	slices.SortFunc(made, func(a, b recall.Recall) int { return a.ID - b.ID })
	return made
}

// lookups are steps from..to that each look a topic up, with prose for
// output: history for a fold to take.
func lookups(from, to, seed int) []map[string]any {
	var msgs []map[string]any
	for i := from; i <= to; i++ {
		msgs = append(msgs, toolStep(i, "lookup_docs", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(seed+i, 120), false)...)
	}
	return msgs
}
