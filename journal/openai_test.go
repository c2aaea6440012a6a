package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

const chatArray = `[
 {"role":"system","content":"You are an airline agent."},
 {"role":"user","content":"Book me a flight to SEA."},
 {"role":"assistant","content":null,"tool_calls":[
   {"id":"call_a","type":"function","function":{"name":"get_user","arguments":"{\"user_id\":\"mia_li_3668\"}"}},
   {"id":"call_b","type":"function","function":{"name":"search_flight","arguments":"{\"to\":\"SEA\"}"}}]},
 {"role":"tool","tool_call_id":"call_b","name":"search_flight","content":"[{\"flight\":\"HAT069\"}]"},
 {"role":"tool","tool_call_id":"call_a","name":"get_user","content":"Error: user not found"},
 {"role":"assistant","content":[{"type":"text","text":"Which date?"}]},
 {"role":"user","content":"May 20."},
 {"role":"assistant","content":"Booked.","tool_calls":[{"id":"call_a","type":"function","function":{"name":"book","arguments":"{}"}}]},
 {"role":"tool","tool_call_id":"call_a","content":"ok"}
]`

func TestImportOpenAIShapes(t *testing.T) {
	t.Parallel()
	var msgs []json.RawMessage
	if err := json.Unmarshal([]byte(chatArray), &msgs); err != nil {
		t.Fatal(err)
	}
	var jsonl []string
	for _, m := range msgs {
		var v any
		json.Unmarshal(m, &v)
		b, _ := json.Marshal(v)
		jsonl = append(jsonl, string(b))
	}
	shapes := map[string]string{
		"array.json":   chatArray,
		"object.json":  `{"model":"gpt-4o","messages":` + chatArray + `}`,
		"lines.jsonl":  strings.Join(jsonl, "\n") + "\n",
		"pretty.json":  "{\n  \"messages\": " + chatArray + "\n}\n",
		"noformat.txt": chatArray,
	}
	for name, content := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, _ := openStore(t)
			path := filepath.Join(t.TempDir(), name)
			os.WriteFile(path, []byte(content), 0o644)
			res := mustImport(t, s, path, journal.ImportOptions{})
			wantRun := strings.TrimSuffix(name, filepath.Ext(name))
			if res.Format != journal.FormatOpenAI || res.Run != wantRun || res.Added != 9 || res.Iterations != 3 {
				t.Fatalf("result = %+v", res)
			}
			run, _ := s.Run(ctx, wantRun)
			if run.SystemPrompt != "You are an airline agent." || run.Task != "Book me a flight to SEA." || run.Status != journal.RunUnknown {
				t.Fatalf("run = %+v", run)
			}
			its, err := s.Iterations(ctx, wantRun, 1, 3, journal.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := its[0].Calls
			if len(c) != 2 || c[0].Result.Output != "Error: user not found" || c[1].Result.Output != `[{"flight":"HAT069"}]` {
				t.Fatalf("calls not paired by id: %+v", c)
			}
			if !its[0].HasError || c[0].Result.Status != journal.StatusError || string(c[0].Args) != `{"user_id":"mia_li_3668"}` {
				t.Fatalf("iteration 1 = %+v", its[0])
			}
			if its[1].Thought != "Which date?" || its[1].Status != journal.IterOK {
				t.Fatalf("iteration 2 = %+v", its[1])
			}
			// A reused call id pairs with the newest call of that id.
			if len(its[2].User) != 1 || its[2].Calls[0].Name != "book" || its[2].Calls[0].Result.Output != "ok" {
				t.Fatalf("iteration 3 = %+v", its[2])
			}
			if again := mustImport(t, s, path, journal.ImportOptions{}); again.Added != 0 || again.Skipped != 9 {
				t.Fatalf("re-import = %+v", again)
			}
		})
	}
}

func TestImportOpenAIGrowsIncrementally(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	var msgs []json.RawMessage
	json.Unmarshal([]byte(chatArray), &msgs)
	path := filepath.Join(t.TempDir(), "chat.json")
	write := func(n int) {
		b, _ := json.Marshal(msgs[:n])
		os.WriteFile(path, b, 0o644)
	}
	write(5)
	if res := mustImport(t, s, path, journal.ImportOptions{}); res.Added != 5 || res.Iterations != 1 {
		t.Fatalf("first = %+v", res)
	}
	write(9)
	if res := mustImport(t, s, path, journal.ImportOptions{}); res.Added != 4 || res.Iterations != 3 || res.NewIterations != 2 {
		t.Fatalf("second = %+v", res)
	}
	if c, _ := s.Counts(ctx, "chat"); c.Calls != 3 || c.PendingCalls != 0 {
		t.Fatalf("counts = %+v", c)
	}
}

func TestBadOpenAIInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, content, want string
	}{
		{"unknown tool id", "a.json", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c9","content":"x"}]`,
			`a.json: messages[1]: tool message answers tool_call_id "c9", which matches no unanswered call`},
		{"answered twice", "a.json", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"},{"role":"tool","tool_call_id":"c1","content":"y"}]`,
			`a.json: messages[2]: tool message answers tool_call_id "c1"`},
		{"tool before any call", "a.json", `[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"x"}]`,
			`a.json: messages[1]: tool message answers`},
		{"jsonl unknown id", "b.jsonl", "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"tool\",\"tool_call_id\":\"zz\",\"content\":\"x\"}\n",
			`b.jsonl:3: tool message answers tool_call_id "zz"`},
		{"jsonl invalid JSON", "b.jsonl", "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\n", `b.jsonl:2: invalid message`},
		{"bad role", "a.json", `[{"role":"robot","content":"x"}]`, `a.json: messages[0]: unknown role "robot"`},
		{"missing role", "a.json", `[{"content":"x"}]`, `a.json: messages[0]: message without "role"`},
		{"content number", "a.json", `[{"role":"user","content":5}]`, `a.json: messages[0]: "content" must be a string`},
		{"tool without id", "a.json", `[{"role":"tool","content":"x"}]`, `a.json: messages[0]: tool message without "tool_call_id"`},
		{"message not object", "a.json", `[{"role":"user","content":"x"}, 7]`, `a.json: messages[1]: a message must be a JSON object`},
		{"broken array", "a.json", `[{"role":"user"`, `a.json: invalid JSON`},
		{"call without id", "a.json", `[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]`, `a.json: messages[0]: tool call "f" has no id`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, _ := openStore(t)
			path := filepath.Join(t.TempDir(), tc.file)
			os.WriteFile(path, []byte(tc.content), 0o644)
			_, err := s.ImportFile(ctx, path, journal.ImportOptions{Format: journal.FormatOpenAI})
			if err == nil || !strings.HasSuffix(strings.SplitN(err.Error(), ": ", 2)[0], strings.SplitN(tc.want, ": ", 2)[0]) || !strings.Contains(err.Error(), strings.SplitN(tc.want, ": ", 2)[1]) {
				t.Fatalf("err = %v\nwant   %s", err, tc.want)
			}
			if !errors.Is(err, journal.ErrInvalidInput) {
				t.Errorf("not an input error: %v", err)
			}
			if runs, _ := s.Runs(ctx); len(runs) != 0 {
				t.Fatalf("failed import stored runs: %+v", runs)
			}
		})
	}
}

// TestImportTauBench imports the real tool-using trajectories from the shared
// evaluation data: OpenAI messages with tool_calls and tool errors.
func TestImportTauBench(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "shared", "evaldata", "tau-bench-airline", "dev.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s not found: the shared evaluation data sits beside the repository checkout", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var records []struct {
		TaskID int             `json:"task_id"`
		Traj   json.RawMessage `json:"traj"`
	}
	if err := json.Unmarshal(data, &records); err != nil {
		t.Fatal(err)
	}
	if len(records) == 0 {
		t.Fatal("no trajectories")
	}
	ctx := context.Background()
	s, _ := openStore(t)
	var calls, failed, iterations int
	for i, r := range records {
		run := fmt.Sprintf("tau-%03d", i)
		res, err := s.ImportOpenAI(ctx, run, path, r.Traj)
		if err != nil {
			t.Fatalf("trajectory %d: %v", i, err)
		}
		var msgs []json.RawMessage
		json.Unmarshal(r.Traj, &msgs)
		if res.Added != len(msgs) {
			t.Fatalf("trajectory %d: added %d of %d messages", i, res.Added, len(msgs))
		}
		c, err := s.Counts(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		if c.PendingCalls != 0 {
			t.Errorf("trajectory %d: %d tool calls without a result", i, c.PendingCalls)
		}
		calls += c.Calls
		failed += c.FailedCalls
		iterations += c.Iterations
		last, err := s.Iteration(ctx, run, c.Iterations, journal.ReadOptions{})
		if err != nil || last.Text() == "" {
			t.Fatalf("trajectory %d: last iteration: %v", i, err)
		}
	}
	if calls == 0 || failed == 0 {
		t.Fatalf("calls = %d, failed = %d: the data has tool calls and tool errors", calls, failed)
	}
	t.Logf("%d trajectories: %d iterations, %d tool calls, %d failed", len(records), iterations, calls, failed)
}
