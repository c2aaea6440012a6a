package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
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
// earlier call took (a date here, which is no entity; a booking code) brings
// that earlier call back with its output once it is folded, into the room
// the window has, so that the agent sees what it saw then. The window is
// built at the pending call, as an agent gets it.
func TestRevisitRecallsTheEarlierOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args, want string
	}{
		{"a date", `{"origin":"DEN","destination":"IAH","date":"2024-06-03"}`, "HAT999 departs 07:15 from gate B17"},
		{"a booking code", `{"reservation_id":"QX7ZP2"}`, "seat 14C, aisle, meal kosher"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 2000})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			msgs := []map[string]any{{"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "Change my booking."}}
			msgs = append(msgs, toolStep(1, "search_direct_flight", `{"origin":"DEN","destination":"IAH","date":"2024-06-03"}`,
				`[{"flight_number": "HAT999", "note": "HAT999 departs 07:15 from gate B17"}]`, false)...)
			msgs = append(msgs, toolStep(2, "get_reservation_details", `{"reservation_id":"QX7ZP2"}`,
				`{"reservation_id": "QX7ZP2", "passengers": 1, "detail": "seat 14C, aisle, meal kosher"}`, false)...)
			for i := 3; i <= 24; i++ {
				msgs = append(msgs, toolStep(i, "lookup_policy", fmt.Sprintf(`{"topic":"rule %d"}`, i), prose(100+i, 120), false)...)
			}
			msgs = append(msgs, toolStep(25, "update_reservation", tc.args, "", true)...)
			data, _ := json.Marshal(msgs)
			events, err := journal.OpenAIEvents("agent.json", data)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := eng.Append(ctx, "agent", events...); err != nil {
				t.Fatal(err)
			}
			cx := contextOf(t, eng)
			if strings.Contains(partitionText(cx, window.Working), "#### Iteration 2 (") {
				t.Fatalf("the early steps are not folded; the test needs them folded:\n%s", cx.Markdown())
			}
			if got := partitionText(cx, window.Retrieved); !strings.Contains(got, tc.want) || !strings.Contains(got, "you named") {
				t.Fatalf("the pending call did not bring back the earlier output %q; Retrieved:\n%s", tc.want, got)
			}
			if cx.Tokens > cx.Budget {
				t.Fatalf("window %d tokens over the budget %d", cx.Tokens, cx.Budget)
			}
		})
	}
}

func partitionText(cx *window.Context, name string) string {
	var b strings.Builder
	for _, s := range partitionOf(cx, name).Sections {
		b.WriteString(s.Name + "\n" + s.Content + "\n")
	}
	return b.String()
}
