package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/journal"
)

// openStore opens a Store on a fresh database file in t.TempDir.
func openStore(t testing.TB) (*journal.Store, string) {
	t.Helper()
	path := pgtest.Target(t, filepath.Join(t.TempDir(), "sub"))
	s, err := journal.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// line renders one Delta journal line.
func line(seq int, typ string, payload any) string {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`{"seq":%d,"timestamp":"2025-10-02T10:00:%02d.000Z","type":%q,"payload":%s}`, seq, seq%60, typ, b)
}

type obj = map[string]any

func thought(seq int, text string, calls ...string) string {
	var tcs []obj
	for _, c := range calls {
		name, id, _ := strings.Cut(c, ":")
		tcs = append(tcs, obj{"id": id, "type": "function", "function": obj{"name": name, "arguments": `{"path":"src/app.py"}`}})
	}
	p := obj{"content": text, "llm_invocation_ref": "inv"}
	if len(tcs) > 0 {
		p["tool_calls"] = tcs
	}
	return line(seq, "THOUGHT", p)
}

func request(seq int, id, tool, cmd string) string {
	return line(seq, "ACTION_REQUEST", obj{"action_id": id, "tool_name": tool, "tool_args": obj{"path": "src/app.py"}, "resolved_command": cmd})
}

func result(seq int, id, status, out string) string {
	return line(seq, "ACTION_RESULT", obj{"action_id": id, "status": status, "observation_content": out, "execution_ref": "x"})
}

// smallJournal is a 3-iteration run with a failure, an unknown event type, a
// mid-run user message and RUN_END.
func smallJournal() []string {
	return []string{
		line(1, "RUN_START", obj{"run_id": "run-1", "task": "fix the parser", "agent_ref": "agents/coder"}),
		line(2, "USER_MESSAGE", obj{"content": "Please fix the parser."}),
		thought(3, "Read the parser first.", "read_file:c1"),
		request(4, "c1", "read_file", "cat src/app.py"),
		result(5, "c1", "SUCCESS", "def parse(): pass"),
		line(6, "HOOK_EXECUTION_AUDIT", obj{"hook_name": "pre_llm", "status": "ok", "io_path_ref": "SECRET-HOOK-TEXT"}),
		thought(7, "Run the tests.", "run_shell:c2"),
		request(8, "c2", "run_shell", "pytest -q"),
		result(9, "c2", "FAILED", "AssertionError: expected 3"),
		line(10, "USER_MESSAGE", obj{"content": "Also update the docs."}),
		thought(11, "Done with tests; now the docs."),
		line(12, "RUN_END", obj{"status": "COMPLETED"}),
	}
}

func writeLines(t testing.TB, path string, lines []string, finalNewline bool) {
	t.Helper()
	s := strings.Join(lines, "\n")
	if finalNewline && len(lines) > 0 {
		s += "\n"
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustImport(t testing.TB, s *journal.Store, path string, opts journal.ImportOptions) journal.ImportResult {
	t.Helper()
	res, err := s.ImportFile(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return res
}
