package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/eval"
)

var (
	locomoFixture      = filepath.Join("..", "..", "testdata", "eval", "locomo-mini.json")
	longmemevalFixture = filepath.Join("..", "..", "testdata", "eval", "longmemeval")
)

// The figures are worked out by hand in eval's fixture tests;
// here the command's output is checked to carry them.
func TestEvalLoCoMo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	out, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", locomoFixture)
	if code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, s := range []string{
		"LoCoMo evidence recall at 1000 tokens", "2 conversations, 7 questions",
		"delta", "recent", "bm25-turns",
		"multi-hop              2         4      1.000      0.500      1.000",
		"overall                7         9      0.857      0.571      0.857",
		"mean context tokens",
		`malformed evidence entries: 3 (2 parsed into ids, 1 unusable), e.g. "D1:3; D3:12", "D:2:4", "beehives"`,
		"evidence ids naming no turn: 1",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	out, _, code = b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", "--limit", "1", "--json", locomoFixture)
	var rep struct {
		Conversations int `json:"conversations"`
		Questions     int `json:"questions"`
		Rows          []struct {
			Group   string                        `json:"group"`
			Systems map[string]map[string]float64 `json:"systems"`
		} `json:"rows"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("--json: code %d\n%s", code, out)
	}
	last := rep.Rows[len(rep.Rows)-1]
	if rep.Conversations != 1 || rep.Questions != 5 || last.Group != "overall" || last.Systems["bm25-turns"]["evidence_recall"] != 0.8 {
		t.Errorf("--limit 1 --json: %+v", rep)
	}
}

// TestEvalCrossValidation cross-validates the two fixture conversations:
// each is reported with a candidate setting chosen on the other, the text
// says which, and the pooled held-out rows count every question once.
func TestEvalCrossValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	out, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", "--cv", "--json", locomoFixture)
	var rep struct {
		Questions int `json:"questions"`
		CV        struct {
			Folds []struct {
				Held      string  `json:"held_out"`
				Questions int     `json:"questions"`
				Chosen    string  `json:"chosen"`
				Test      float64 `json:"test"`
			} `json:"folds"`
			Rows []struct {
				Group     string                        `json:"group"`
				Questions int                           `json:"questions"`
				Systems   map[string]map[string]float64 `json:"systems"`
			} `json:"rows"`
		} `json:"cross_validation"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("--cv --json: code %d\n%s\n%s", code, out, errOut)
	}
	names := map[string]bool{}
	for _, c := range eval.Candidates {
		names[c.Name] = true
	}
	if len(rep.CV.Folds) != 2 {
		t.Fatalf("%d folds, want one per conversation: %+v", len(rep.CV.Folds), rep.CV)
	}
	sum := 0
	for _, f := range rep.CV.Folds {
		if !names[f.Chosen] || !strings.HasPrefix(f.Held, "conversation ") {
			t.Errorf("fold %+v: not a conversation, or a setting eval does not try", f)
		}
		sum += f.Questions
	}
	last := rep.CV.Rows[len(rep.CV.Rows)-1]
	if sum != rep.Questions || last.Group != "overall" || last.Questions != rep.Questions || last.Systems["bm25-turns"] == nil {
		t.Errorf("folds hold %d questions, pooled overall %+v; the eval has %d", sum, last, rep.Questions)
	}
	text, _, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", "--cv", locomoFixture)
	if code != 0 || !strings.Contains(text, "cross-validated, held out: each conversation") || strings.Count(text, "overall ") != 2 {
		t.Errorf("--cv text: code %d\n%s", code, text)
	}
}

func TestEvalLongMemEval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	out, errOut, code := b.run(t, ctx, "memory", "eval", "longmemeval", "--budget", "1000", longmemevalFixture)
	if code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, s := range []string{
		"LongMemEval at 1000 tokens", "2 questions (1 abstention questions left out)",
		"sess R_all@5", "turn R_any@10",
		"multi-session                 1 delta             1.000         1.000       1.000         1.000    1.000",
		"                                recent            0.000         1.000       0.250         0.500    0.250",
		"reference, not the same haystack", "LongMemEval_M",
		"paper             0.706         0.783       0.617",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	out, _, code = b.run(t, ctx, "memory", "eval", "longmemeval", "--budget", "1000", "--json", filepath.Join(longmemevalFixture, "mini_q1.json"))
	var rep struct {
		Questions int `json:"questions"`
		Reference struct {
			Figures map[string]float64 `json:"figures"`
		} `json:"reference"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Questions != 1 || rep.Reference.Figures["session_recall_all@5"] != 0.706 {
		t.Errorf("--json on one file: code %d\n%s", code, out)
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"memory", "eval", "locomo"}, exitUsage, []string{"want one FILE", "Try: delta memory eval locomo FILE"}},
		{[]string{"memory", "eval", "locomo", "--limit", "-1", locomoFixture}, exitUsage, []string{"--limit -1"}},
		{[]string{"memory", "eval", "locomo", "--budget", "10", locomoFixture}, exitUsage, []string{"--budget \"10\""}},
		{[]string{"memory", "eval", "locomo", filepath.Join(b.dir, "nope.json")}, exitFailure, []string{"nope.json", "Try: check the path"}},
		{[]string{"memory", "eval", "locomo", b.write(t, "bad.json", `{"x": 1}`)}, exitFailure, []string{"not a LoCoMo file", "Try: pass LoCoMo's locomo10.json"}},
		{[]string{"memory", "eval", "longmemeval", b.write(t, "bad2.json", `[1]`)}, exitFailure, []string{"not a LongMemEval file", "Try: pass longmemeval_s_cleaned.json"}},
		{[]string{"memory", "eval", "squad"}, exitUsage, []string{`unknown command "squad"`}},
		{[]string{"memory", "eval", "locomo", "--cv", "--limit", "1", locomoFixture}, exitFailure, []string{"cross-validation needs at least 2 conversations, got 1", "leave out --cv"}},
		{[]string{"memory", "eval", "longmemeval", "--contexts", longmemevalFixture}, exitUsage, []string{"--contexts: the contexts go in --questions' lines", "Try: add --questions FILE"}},
	}
	for _, c := range cases {
		_, errOut, code := b.run(t, ctx, c.args...)
		if code != c.code {
			t.Errorf("%v: code %d, want %d\n%s", c.args, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
}

func TestEvalInterrupted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", locomoFixture)
	if code != exitInterrupted || !strings.Contains(errOut, "interrupted") {
		t.Errorf("code %d, want %d\n%s", code, exitInterrupted, errOut)
	}
}

// trajFixture is four short agent runs in tau-bench's shape. Each reads a
// parser and a settings file, runs the tests, edits the parser, runs the
// tests again and reads both files again: five revisits, of which the one
// to the edit (answered "ok") stands on the edit's call, and the re-read of
// an empty file has no evidence at all.
func trajFixture(b *testing.T, tb *testBundle) string {
	b.Helper()
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"role": "assistant", "content": null, "tool_calls": [{"id": %q, "type": "function", "function": {"name": %q, "arguments": %q}}]}`, id, name, args)
	}
	tool := func(id, out string) string {
		return fmt.Sprintf(`{"role": "tool", "tool_call_id": %q, "content": %q}`, id, out)
	}
	msgs := []string{
		`{"role": "system", "content": "You are a careful coding agent."}`,
		`{"role": "user", "content": "Fix the token limit in the parser."}`,
		call("c1", "read_file", `{"path": "src/parser.py"}`), tool("c1", "def parse(text):\n    return TOKEN_LIMIT\nimport yaml_loader\n"),
		call("c2", "read_file", `{"path": "config/settings.yaml"}`), tool("c2", "token_limit: 4096\nmode: strict\nimport_paths: none"),
		call("c3", "run_shell", `{"command": "pytest -q"}`), tool("c3", "FAILED test_parse: expected 4096, got 2048"),
		call("c4", "edit_file", `{"path": "src/parser.py", "old": "TOKEN_LIMIT", "new": "4096"}`), tool("c4", "ok"),
		call("c5", "run_shell", `{"command": "pytest -q"}`), tool("c5", "1 passed in 0.12s"),
		call("c6", "read_file", `{"path": "config/settings.yaml"}`), tool("c6", "token_limit: 4096\nmode: strict"),
		call("c7", "read_file", `{"path": "src/parser.py"}`), tool("c7", "def parse(text):\n    return 4096"),
		call("c8", "read_file", `{"path": "notes.txt"}`), tool("c8", ""),
		call("c9", "read_file", `{"path": "notes.txt"}`), tool("c9", ""),
		`{"role": "assistant", "content": "Done."}`,
	}
	var runs []string
	for i := range 4 {
		runs = append(runs, fmt.Sprintf(`{"task_id": %d, "traj": [%s]}`, i, strings.Join(msgs, ",\n")))
	}
	return tb.write(b, "runs/tau.json", "["+strings.Join(runs, ",\n")+"]")
}

func TestEvalTrajectories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	file := trajFixture(t, b)
	b.write(t, "runs/chat.jsonl", `{"role": "user", "content": "hi"}`+"\n"+`{"role": "assistant", "content": "hello"}`+"\n")
	probes := filepath.Join(t.TempDir(), "probes.jsonl")
	out, errOut, code := b.run(t, ctx, "memory", "eval", "trajectories", "--budget", "2000", "--questions", probes, filepath.Dir(file))
	if code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// --questions: one line per probe, what each system's window held.
	data, err := os.ReadFile(probes)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 16 {
		t.Errorf("--questions wrote %d lines, want one per probe (16)", len(lines))
	}
	var probe struct {
		Run      string          `json:"run"`
		Budget   int             `json:"budget"`
		Step     int             `json:"step"`
		Evidence []string        `json:"evidence"`
		Held     map[string]bool `json:"held"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &probe); err != nil || probe.Budget != 2000 || probe.Step == 0 || len(probe.Evidence) == 0 || len(probe.Held) != 3 {
		t.Errorf("first --questions line %s: %+v, %v", lines[0], probe, err)
	}
	for _, s := range []string{
		"Trajectory revisits: " + filepath.Dir(file) + ", 4 runs, 40 steps, 16 probes (4 more left out: no evidence term)",
		"  2000 delta", "       recent", "       bm25-steps", "2-3", "16+",
		"transcripts left out, no tool call: 1 (chat.jsonl)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	type revisit struct {
		Held   int     `json:"held"`
		Probes int     `json:"probes"`
		Rate   float64 `json:"rate"`
	}
	var rep struct {
		Runs     int `json:"runs"`
		Probes   int `json:"probes"`
		Skipped  int `json:"skipped"`
		ByBudget []struct {
			Budget  int `json:"budget"`
			Systems map[string]struct {
				revisit
				MeanTokens float64            `json:"mean_tokens"`
				ByDistance map[string]revisit `json:"by_distance"`
			} `json:"systems"`
		} `json:"by_budget"`
		CV *struct {
			Folds []struct {
				Chosen string `json:"chosen"`
			} `json:"folds"`
			ByBudget []struct {
				Budget int `json:"budget"`
			} `json:"by_budget"`
		} `json:"cross_validation"`
	}
	// Budgets repeated and listed, from the flag and the environment.
	b.env["DELTA_MEMORY_BUDGET"] = "1000,3000"
	for _, args := range [][]string{
		{"--budget", "1000", "--budget", "3000", file},
		{file, "--budget", "1000,3000"},
		{file},
	} {
		out, errOut, code = b.run(t, ctx, append([]string{"memory", "eval", "trajectories", "--json"}, args...)...)
		rep.ByBudget = nil
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("%v: code %d\n%s\n%s", args, code, out, errOut)
		}
		if rep.Runs != 4 || rep.Probes != 16 || rep.Skipped != 4 || len(rep.ByBudget) != 2 || rep.ByBudget[0].Budget != 1000 || rep.ByBudget[1].Budget != 3000 || rep.CV != nil {
			t.Fatalf("%v: %+v", args, rep)
		}
		for _, bb := range rep.ByBudget {
			for _, sys := range []string{"delta", "recent", "bm25-steps"} {
				s, ok := bb.Systems[sys]
				if !ok || s.Probes != 16 || s.Held > 16 || len(s.ByDistance) != 5 || s.ByDistance["2-3"].Probes != 12 || s.MeanTokens <= 0 {
					t.Errorf("%v, %d tokens, %s: %+v", args, bb.Budget, sys, s)
				}
			}
		}
	}
	out, errOut, code = b.run(t, ctx, "memory", "eval", "trajectories", "--cv", "--json", "--budget", "2000", file)
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.CV == nil || len(rep.CV.Folds) != 4 || len(rep.CV.ByBudget) != 1 {
		t.Fatalf("--cv: code %d\n%s\n%s", code, out, errOut)
	}
}

func TestEvalTrajectoriesErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	file := trajFixture(t, b)
	empty := filepath.Join(b.dir, "empty")
	os.Mkdir(empty, 0o755)
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"trajectories", "--budget", "10", file}, exitUsage, []string{`--budget "10": want a whole number of tokens >= 500`}},
		{[]string{"trajectories", "--budget", "2000,lots", file}, exitUsage, []string{`--budget "lots"`}},
		{[]string{"locomo", "--budget", "2000,4000", locomoFixture}, exitUsage, []string{"only eval trajectories takes several"}},
		{[]string{"trajectories", filepath.Join(b.dir, "nope.json")}, exitFailure, []string{"nope.json", "Try: check the path"}},
		{[]string{"trajectories", empty}, exitFailure, []string{"no *.json or *.jsonl file", "Try: pass a directory holding transcripts"}},
		{[]string{"trajectories", b.write(t, "bad.json", `[{"role": "robot"}]`)}, exitFailure, []string{"bad.json: messages[0]: unknown role", `Try: pass OpenAI chat messages`}},
		{[]string{"trajectories", "--cv", "--limit", "3", file}, exitFailure, []string{"cross-validation needs at least 4 runs with tool calls, got 3"}},
		{[]string{"trajectories", "synth:none"}, exitFailure, []string{"synth:none: want synth:N"}},
		{[]string{"trajectories", "synth:2x1"}, exitFailure, []string{"want at least 2 iterations per run"}},
	}
	for _, c := range cases {
		_, errOut, code := b.run(t, ctx, append([]string{"memory", "eval"}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: code %d, want %d\n%s", c.args, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
	b.env["DELTA_MEMORY_BUDGET"] = "4000,big"
	if _, errOut, code := b.run(t, ctx, "memory", "eval", "trajectories", file); code != exitUsage || !strings.Contains(errOut, `DELTA_MEMORY_BUDGET="big"`) {
		t.Errorf("DELTA_MEMORY_BUDGET=4000,big: code %d\n%s", code, errOut)
	}
}

// TestEvalQuestions writes one line per question: the fixture's 7
// LoCoMo questions, each with its evidence, what each system's context
// held of it (bm25-turns holds 0.857 of the questions' evidence overall,
// so some line must miss some), and the engine's ranks; for LongMemEval,
// the first sessions of each ranking too.
func TestEvalQuestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	path := filepath.Join(b.dir, "questions.jsonl")
	if out, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", "--questions", path, locomoFixture); code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want one per question (7):\n%s", len(lines), raw)
	}
	missed := false
	for _, l := range lines {
		var q struct {
			Run, Group, Question string
			Evidence             []string
			Found                map[string][]string
			Tokens               map[string]int
			Ranks                map[string][]int
		}
		if err := json.Unmarshal([]byte(l), &q); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if q.Run == "" || q.Group == "" || q.Question == "" || len(q.Evidence) == 0 || q.Tokens["delta"] == 0 || len(q.Ranks["delta"]) != len(q.Evidence) {
			t.Errorf("incomplete line: %s", l)
		}
		for _, sys := range []string{"delta", "recent", "bm25-turns"} {
			if len(q.Found[sys]) > len(q.Evidence) {
				t.Errorf("%s found more than the evidence: %s", sys, l)
			}
		}
		missed = missed || len(q.Found["bm25-turns"]) < len(q.Evidence)
		if strings.Contains(l, `"contexts"`) {
			t.Errorf("a line has contexts, though --contexts was not given: %s", l)
		}
	}
	if !missed {
		t.Error("no line shows bm25-turns missing evidence, though its recall is 0.857")
	}
	lme := filepath.Join(b.dir, "lme.jsonl")
	if out, errOut, code := b.run(t, ctx, "memory", "eval", "longmemeval", "--budget", "1000", "--questions", lme, longmemevalFixture); code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if raw, err = os.ReadFile(lme); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"sessions":{`) || !strings.Contains(string(raw), `"answer_sessions":[`) {
		t.Errorf("LongMemEval lines lack the sessions:\n%s", raw)
	}
	if _, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--questions", filepath.Join(b.dir, "no", "such", "q.jsonl"), locomoFixture); code == 0 || !strings.Contains(errOut, "--questions") {
		t.Errorf("an unwritable --questions file: code %d, %s", code, errOut)
	}
}

// TestEvalContexts checks that --contexts puts in each --questions line the
// context each system built, the text its found evidence was read in.
func TestEvalContexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	path := filepath.Join(b.dir, "questions.jsonl")
	if out, errOut, code := b.run(t, ctx, "memory", "eval", "locomo", "--budget", "1000", "--questions", path, "--contexts", locomoFixture); code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fixture []struct {
		SampleID     string         `json:"sample_id"`
		Conversation map[string]any `json:"conversation"`
	}
	fraw, err := os.ReadFile(locomoFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(fraw, &fixture); err != nil {
		t.Fatal(err)
	}
	// The text of each turn, by conversation and dia_id.
	turns := map[string]string{}
	for _, c := range fixture {
		for _, v := range c.Conversation {
			list, ok := v.([]any)
			if !ok {
				continue
			}
			for _, x := range list {
				m, _ := x.(map[string]any)
				id, _ := m["dia_id"].(string)
				text, _ := m["text"].(string)
				turns[c.SampleID+"/"+id] = text
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	checked := 0
	for _, l := range lines {
		var q struct {
			Run      string
			Found    map[string][]string
			Contexts map[string]string
		}
		if err := json.Unmarshal([]byte(l), &q); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if len(q.Contexts) != 3 || !strings.Contains(q.Contexts["delta"], "## Working memory") {
			t.Errorf("a line lacks a system's context, or the engine's is not its window: %s", l)
		}
		for sys, ids := range q.Found {
			for _, id := range ids {
				text, ok := turns[q.Run+"/"+id]
				if !ok {
					continue // an id the loader read out of a malformed entry
				}
				checked++
				if !strings.Contains(q.Contexts[sys], text) {
					t.Errorf("%s found %s in its context, whose text does not hold %q", sys, id, text)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no found evidence turn to check the contexts against")
	}
	probes := filepath.Join(b.dir, "probes.jsonl")
	file := trajFixture(t, b)
	if out, errOut, code := b.run(t, ctx, "memory", "eval", "trajectories", "--budget", "2000", "--questions", probes, "--contexts", file); code != 0 {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if raw, err = os.ReadFile(probes); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var p struct{ Contexts map[string]string }
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if len(p.Contexts) != 3 || p.Contexts["delta"] == "" || strings.Contains(p.Contexts["delta"], "## Static") {
			t.Errorf("a probe's line lacks a system's window, or the engine's holds Static, which the probe does not read: %s", l)
		}
	}
}
