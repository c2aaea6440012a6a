package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testBundle runs the CLI in-process against a database in a temp dir.
type testBundle struct {
	dir string
	db  string
	env map[string]string
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	dir := t.TempDir()
	return &testBundle{dir: dir, db: filepath.Join(dir, "memory.db"), env: map[string]string{}}
}

// run executes `delta args...` and returns stdout, stderr and the exit code.
func (b *testBundle) run(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdout: &out, stderr: &errb, getenv: func(k string) string { return b.env[k] }}
	code := run(ctx, append([]string{"delta"}, args...), e)
	return out.String(), errb.String(), code
}

func (b *testBundle) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(b.dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *testBundle) read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const journalText = `{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_START","payload":{"run_id":"run-1","task":"fix the parser"}}
{"seq":2,"timestamp":"2025-10-02T10:00:01.000Z","type":"THOUGHT","payload":{"content":"Read it.","tool_calls":[{"id":"a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/parser.py\"}"}}]}}
{"seq":3,"timestamp":"2025-10-02T10:00:02.000Z","type":"ACTION_REQUEST","payload":{"action_id":"a","tool_name":"read_file","tool_args":{"path":"src/parser.py"},"resolved_command":"cat src/parser.py"}}
{"seq":4,"timestamp":"2025-10-02T10:00:03.000Z","type":"ACTION_RESULT","payload":{"action_id":"a","status":"FAILED","observation_content":"cat: src/parser.py: No such file or directory"}}
{"seq":5,"timestamp":"2025-10-02T10:00:04.000Z","type":"RUN_END","payload":{"status":"COMPLETED"}}
`

func TestImportShowRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)

	out, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j)
	if code != 0 || errOut != "" || !strings.Contains(out, "run run-1 (delta): 5 new events") {
		t.Fatalf("import: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	out, _, code = b.run(t, ctx, "memory", "show", "--db", b.db, "--json")
	if code != 0 {
		t.Fatalf("show --json: code %d", code)
	}
	var shown struct {
		Run map[string]any `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("show --json is not JSON: %v\n%s", err, out)
	}
	want := map[string]any{"id": "run-1", "task": "fix the parser", "status": "COMPLETED", "iterations": 1.0, "events": 5.0, "last_seq": 5.0}
	for k, v := range want {
		if shown.Run[k] != v {
			t.Errorf("run.%s = %v, want %v", k, shown.Run[k], v)
		}
	}
	out, _, _ = b.run(t, ctx, "memory", "show", "--db", b.db, "--iteration", "1")
	for _, s := range []string{"Thought: Read it.", `Call read_file {"path":"src/parser.py"}`, "$ cat src/parser.py", "Result FAILED:", "No such file or directory"} {
		if !strings.Contains(out, s) {
			t.Errorf("show --iteration 1 lacks %q:\n%s", s, out)
		}
	}
	out, _, _ = b.run(t, ctx, "memory", "show", "--db", b.db, "--iteration", "1", "--json")
	var it struct {
		Iteration struct {
			Events []struct {
				Seq  int    `json:"seq"`
				Type string `json:"type"`
			} `json:"events"`
		} `json:"iteration"`
	}
	if err := json.Unmarshal([]byte(out), &it); err != nil || len(it.Iteration.Events) != 4 || it.Iteration.Events[0].Type != "THOUGHT" {
		t.Fatalf("show --iteration --json: %v\n%s", err, out)
	}
	out, _, _ = b.run(t, ctx, "memory", "runs", "--db", b.db)
	if !strings.Contains(out, "run-1") || !strings.Contains(out, "COMPLETED") {
		t.Errorf("runs:\n%s", out)
	}
	out, _, _ = b.run(t, ctx, "memory", "runs", "--db", b.db, "--json")
	var runs struct {
		Runs []map[string]any `json:"runs"`
	}
	if json.Unmarshal([]byte(out), &runs) != nil || len(runs.Runs) != 1 || runs.Runs[0]["id"] != "run-1" {
		t.Errorf("runs --json:\n%s", out)
	}
	// Re-import adds nothing.
	out, _, _ = b.run(t, ctx, "memory", "import", "--db", b.db, "--json", j)
	if !strings.Contains(out, `"added": 0`) {
		t.Errorf("re-import:\n%s", out)
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	good := b.write(t, "journal.jsonl", journalText)
	bad := b.write(t, "bad.jsonl", strings.Replace(journalText, `"seq":3,`, `"seq":2,`, 1))
	b.run(t, ctx, "memory", "import", "--db", b.db, good)
	canceled, cancel := context.WithCancel(ctx)
	cancel()

	cases := []struct {
		name   string
		ctx    context.Context
		args   []string
		code   int
		stderr []string
	}{
		{"bad line", ctx, []string{"memory", "import", "--db", b.db, "--run", "other", bad}, 1,
			[]string{"Error: import " + bad + ": " + bad + ":3: seq 2 does not increase", "Try: fix that line"}},
		{"unknown run", ctx, []string{"memory", "show", "--db", b.db, "--run", "nope"}, 1, []string{`Error: run not found: "nope"`, "Try: list the runs with: delta memory runs"}},
		{"iteration out of range", ctx, []string{"memory", "show", "--db", b.db, "--iteration", "9"}, 1, []string{"Error: iteration 9: run run-1 has iterations 1-1", "Try: pick an iteration between 1 and 1"}},
		{"no database", ctx, []string{"memory", "show", "--db", filepath.Join(b.dir, "none.db")}, 1, []string{"no memory database", "Try: import a journal first"}},
		{"missing file", ctx, []string{"memory", "import", "--db", b.db, filepath.Join(b.dir, "nope.jsonl")}, 1, []string{"no such file", "Try: check the path"}},
		{"unknown flag", ctx, []string{"memory", "import", "--bogus", good}, 2, []string{"Error: flag provided but not defined: -bogus", "Try: delta memory import --help"}},
		{"no files", ctx, []string{"memory", "import", "--db", b.db}, 2, []string{"no FILE to import"}},
		{"bad format", ctx, []string{"memory", "import", "--db", b.db, "--format", "yaml", good}, 2, []string{`--format "yaml": want auto, delta, openai`}},
		{"unknown command", ctx, []string{"memory", "frobnicate"}, 2, []string{`Error: unknown command "frobnicate"`}},
		{"unknown top command", ctx, []string{"remember"}, 2, []string{`Error: unknown command "remember"`}},
		{"interrupted", canceled, []string{"memory", "import", "--db", b.db, "--run", "late", good}, 130, []string{"interrupted"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := b.run(t, tc.ctx, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tc.code, errOut)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
	// Neither the bad file nor the interrupted import stored anything.
	out, _, _ := b.run(t, ctx, "memory", "runs", "--db", b.db, "--json")
	if strings.Contains(out, `"other"`) || strings.Contains(out, `"late"`) {
		t.Fatalf("a failed import left a run behind:\n%s", out)
	}
}

func TestDefaultDatabaseFollowsDeltaCWD(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.env["DELTA_CWD"] = b.dir
	j := b.write(t, ".delta/run-1/journal.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(b.dir, ".delta", "memory.db")); err != nil {
		t.Fatalf("database not at $DELTA_CWD/.delta/memory.db: %v", err)
	}
}

func TestEnvVarsNameFlags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	b.env["DELTA_MEMORY_DB"] = b.db
	b.env["DELTA_RUN_ID"] = "from-env"
	if _, errOut, code := b.run(t, ctx, "memory", "import", j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out, _, code := b.run(t, ctx, "memory", "show", "--json")
	if code != 0 || !strings.Contains(out, `"id": "from-env"`) {
		t.Fatalf("show with env vars: %d\n%s", code, out)
	}
	// A flag beats its env var, at whichever level the user typed it.
	for _, args := range [][]string{
		{"--run", "run-x", "memory", "show"},
		{"memory", "--run", "run-x", "show"},
		{"memory", "show", "--run", "run-x"},
	} {
		_, errOut, code := b.run(t, ctx, args...)
		if code != 1 || !strings.Contains(errOut, `run not found: "run-x"`) {
			t.Errorf("%v did not override DELTA_RUN_ID: code %d, stderr %s", args, code, errOut)
		}
	}
	// The innermost flag wins over an outer one.
	if out, errOut, code := b.run(t, ctx, "--run", "run-x", "memory", "show", "--run", "from-env", "--json"); code != 0 || !strings.Contains(out, `"id": "from-env"`) {
		t.Errorf("inner --run did not win: %d %s", code, errOut)
	}
	// --db typed before the command works too.
	b.env["DELTA_MEMORY_DB"] = filepath.Join(b.dir, "elsewhere.db")
	if _, errOut, code := b.run(t, ctx, "--db", b.db, "memory", "show"); code != 0 {
		t.Errorf("--db before the command: %s", errOut)
	}
}

func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, cmd := range []string{"import", "runs", "show", "mcp"} {
		out, _, code := b.run(t, context.Background(), "memory", cmd, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "delta memory "+cmd) {
			t.Errorf("delta memory %s --help: code %d\n%s", cmd, code, out)
		}
		if !strings.Contains(out, "$DELTA_MEMORY_DB") {
			t.Errorf("delta memory %s --help does not name DELTA_MEMORY_DB", cmd)
		}
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	// Flags after the file, as users type them.
	if out, errOut, code := b.run(t, ctx, "memory", "import", j, "--db", b.db, "--json"); code != 0 || !strings.Contains(out, `"added": 5`) {
		t.Fatalf("import FILE --db X --json: %d %s %s", code, out, errOut)
	}
	// Everything after "--" is an argument, even if it looks like a flag.
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, "--", "--json"); code != 1 || !strings.Contains(errOut, "--json") {
		t.Fatalf("import -- --json: %d %s", code, errOut)
	}
	if _, _, code := b.run(t, ctx, "memory", "show", "--iteration", "1", "--db", b.db); code != 0 {
		t.Fatalf("show with flags in any order: %d", code)
	}
}
