package fold_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

// call builds a journal.ToolCall; status "" leaves it without a result.
func call(name, args, status, output string) journal.ToolCall {
	c := journal.ToolCall{ID: "c-" + name, Name: name, Args: json.RawMessage(args)}
	if status != "" {
		c.Result = &journal.ToolResult{Status: status, Output: output}
	}
	return c
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the parser\n", i)
	}
	return b.String()
}

func TestL1LineTemplates(t *testing.T) {
	t.Parallel()
	const pytestOut = "============ test session starts ============\n" +
		"tests/test_ingest.py F\n" +
		"Traceback (most recent call last):\n" +
		"  File \"tests/test_ingest.py\", line 12, in test_rows\n" +
		"    assert len(rows) == 5\n" +
		"AssertionError: assert 4 == 5"
	cases := []struct {
		name string
		it   journal.Iteration
		want string
	}{
		{"read", journal.Iteration{Number: 83, Calls: []journal.ToolCall{
			call("read_file", `{"path":"src/parser/core.py"}`, journal.StatusSuccess, numberedLines(214)),
		}}, "[iter 83] read_file src/parser/core.py → 214 lines ok"},
		{"shell failure", journal.Iteration{Number: 91, Calls: []journal.ToolCall{
			call("run_shell", `{"command":"pytest -q tests/test_ingest.py"}`, journal.StatusFailed, pytestOut),
		}}, "[iter 91] run_shell `pytest -q tests/test_ingest.py` → FAILED: AssertionError: assert 4 == 5"},
		{"shell success", journal.Iteration{Number: 92, Calls: []journal.ToolCall{
			call("run_shell", `{"command":"ls -la\n  && echo done"}`, journal.StatusSuccess, "done"),
		}}, "[iter 92] run_shell `ls -la && echo done` → ok: done"},
		{"shell, a long line", journal.Iteration{Number: 93, Calls: []journal.ToolCall{
			call("run_shell", `{"command":"cat VERSION"}`, journal.StatusSuccess, strings.Repeat("v", 81)),
		}}, "[iter 93] run_shell `cat VERSION` → ok, 81 B"},
		{"shell, two lines", journal.Iteration{Number: 94, Calls: []journal.ToolCall{
			call("run_shell", `{"command":"git status --short"}`, journal.StatusSuccess, " M a.py\n M b.py\n"),
		}}, "[iter 94] run_shell `git status --short` → ok, 16 B"},
		{"write", journal.Iteration{Number: 12, Calls: []journal.ToolCall{
			call("write_file", `{"path":"src/parser/core.py","content":"def parse():\n    return []\n"}`, journal.StatusSuccess, "wrote 27 bytes"),
		}}, "[iter 12] write_file src/parser/core.py → ok: wrote 27 bytes"},
		{"write, acknowledged", journal.Iteration{Number: 13, Calls: []journal.ToolCall{
			call("write_file", `{"path":"src/parser/core.py","content":"x = 1\n"}`, journal.StatusSuccess, "OK\n"),
		}}, "[iter 13] write_file src/parser/core.py → ok"},
		{"search", journal.Iteration{Number: 4, Calls: []journal.ToolCall{
			call("grep_search", `{"query":"def parse","path":"src"}`, journal.StatusSuccess, "src/a.py:1:def parse\nsrc/b.py:9:def parse\nsrc/c.py:3:def parse\n"),
		}}, `[iter 4] grep_search "def parse" in src → 3 matches`},
		{"search without matches", journal.Iteration{Number: 5, Calls: []journal.ToolCall{
			call("grep_search", `{"pattern":"TODO"}`, journal.StatusSuccess, ""),
		}}, `[iter 5] grep_search "TODO" → no matches`},
		{"list", journal.Iteration{Number: 2, Calls: []journal.ToolCall{
			call("list_dir", `{"path":"src/parser"}`, journal.StatusSuccess, "core.py\n__init__.py\nlexer.py\ntokens.py\n"),
		}}, "[iter 2] list_dir src/parser → 4 entries"},
		{"http", journal.Iteration{Number: 40, Calls: []journal.ToolCall{
			call("http_request", `{"url":"https://api.example.com/v1/items","method":"get"}`, journal.StatusSuccess, strings.Repeat("x", 1234)),
		}}, "[iter 40] http_request GET https://api.example.com/v1/items → ok, 1.2 KB"},
		{"http failure", journal.Iteration{Number: 41, Calls: []journal.ToolCall{
			call("fetch_url", `{"url":"https://example.com/missing"}`, journal.StatusError, "HTTP 404\nError: not found"),
		}}, "[iter 41] fetch_url https://example.com/missing → ERROR: Error: not found"},
		{"unknown tool", journal.Iteration{Number: 7, Calls: []journal.ToolCall{
			call("ask_oracle", `{"question": "why is the sky blue"}`, journal.StatusSuccess, "Rayleigh scattering."),
		}}, `[iter 7] ask_oracle {"question": "why is the sky blue"} → ok: Rayleigh scattering.`},
		{"no calls", journal.Iteration{Number: 9, Thought: "All tests pass now. Next I will clean up the\nlexer."},
			"[iter 9] thought: All tests pass now."},
		{"user message only", journal.Iteration{Number: 12, User: []string{"Which streaming service do I use? Asking for a friend."}},
			"[iter 12] user: Which streaming service do I use?"},
		{"pending", journal.Iteration{Number: 10, Calls: []journal.ToolCall{
			call("run_shell", `{"command":"make build"}`, "", ""),
		}}, "[iter 10] run_shell `make build` → no result yet"},
		{"two calls", journal.Iteration{Number: 11, Calls: []journal.ToolCall{
			call("read_file", `{"path":"a.py"}`, journal.StatusSuccess, "x = 1\ny = 2"),
			call("list_dir", `{"path":"."}`, journal.StatusSuccess, "a.py\nb.py\n"),
		}}, "[iter 11] read_file a.py → 2 lines ok; list_dir . → 2 entries"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fold.L1Line(&tc.it); got != tc.want {
				t.Errorf("L1Line:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// An L1 line stays one line however long the thought, command or error.
func TestL1LineIsOneBoundedLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100)
	it := journal.Iteration{Number: 3, Thought: long, Calls: []journal.ToolCall{
		call("run_shell", fmt.Sprintf(`{"command":%q}`, "echo "+long+"\nexit 1"), journal.StatusFailed, "Error: "+long),
	}}
	got := fold.L1Line(&it)
	if strings.Contains(got, "\n") {
		t.Fatalf("L1 line has a newline: %q", got)
	}
	if n := len([]rune(got)); n > 260 {
		t.Fatalf("L1 line is %d runes: %q", n, got)
	}
	if !strings.Contains(got, "…") {
		t.Fatalf("a clipped L1 line should end its clipped parts in …: %q", got)
	}
}
