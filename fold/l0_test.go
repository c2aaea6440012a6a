package fold_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

func tokenizer(t *testing.T) scoring.Tokenizer {
	t.Helper()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestRenderL0TruncatesLongOutput(t *testing.T) {
	t.Parallel()
	tok := tokenizer(t)
	var out strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&out, "row %03d: value=%d status=ok\n", i, i*7)
	}
	out.WriteString("summary: 400 rows")
	output := out.String()
	total := tok.Count(output)
	const limit = 200
	if total <= 2*limit {
		t.Fatalf("test output is only %d tokens", total)
	}
	it := &journal.Iteration{Number: 17, Status: journal.IterOK, Thought: "Dump the table.", Calls: []journal.ToolCall{
		call("run_shell", `{"command":"sqlite3 db.sqlite 'select * from rows'"}`, journal.StatusSuccess, output),
	}}
	r := fold.RenderL0(tok, it, limit)

	note := fmt.Sprintf("[output truncated: %d tokens; delta memory show --iteration 17]", total)
	if c := strings.Count(r.Markdown, note); c != 1 {
		t.Fatalf("markdown has the note %q %d times:\n%s", note, c, r.Markdown)
	}
	if !strings.Contains(r.Markdown, "row 001: value=7 status=ok\n") {
		t.Error("markdown lost the head of the output")
	}
	if !strings.Contains(r.Markdown, "summary: 400 rows") {
		t.Error("markdown lost the tail of the output")
	}
	if strings.Contains(r.Markdown, "row 200: value=1400") {
		t.Error("markdown kept the middle of the output")
	}
	if r.MarkdownTokens != tok.Count(r.Markdown) {
		t.Errorf("MarkdownTokens = %d, the markdown counts %d", r.MarkdownTokens, tok.Count(r.Markdown))
	}
	if r.MarkdownTokens > total/2 {
		t.Errorf("reduced iteration is %d tokens, the output alone was %d", r.MarkdownTokens, total)
	}
	if len(r.Messages) != 2 || r.Messages[1].Role != "tool" {
		t.Fatalf("messages: %+v", r.Messages)
	}
	if got := r.Messages[1].Text(); !strings.Contains(got, note) || !strings.HasPrefix(got, "row 001") {
		t.Errorf("tool message is not reduced the same way: %.200q", got)
	}
	// MessagesTokens budgets the messages form: it may bound the real count
	// from above, never from below.
	if exact := fold.MessagesTokens(tok, r.Messages); r.MessagesTokens < exact {
		t.Errorf("MessagesTokens = %d, less than the messages' %d", r.MessagesTokens, exact)
	}

	// Under the threshold the output is shown whole, without a note.
	small := fold.RenderL0(tok, it, total)
	if strings.Contains(small.Markdown, "[output truncated") || !strings.Contains(small.Markdown, "row 200: value=1400") {
		t.Error("an output at the threshold was reduced")
	}
}

func TestRenderL0PairsEveryCall(t *testing.T) {
	t.Parallel()
	tok := tokenizer(t)
	it := &journal.Iteration{Number: 5, Status: journal.IterPending, User: []string{"Also check the docs."},
		Thought: "Read both files, then build.",
		Calls: []journal.ToolCall{
			call("read_file", `{"path":"a.py"}`, journal.StatusSuccess, "x = 1"),
			{Name: "read_file", Args: []byte(`{"path":"b.py"}`), Result: &journal.ToolResult{Status: journal.StatusFailed, Output: "No such file or directory"}},
			call("run_shell", `{"command":"make"}`, "", ""),
		}}
	r := fold.RenderL0(tok, it, 0)
	roles := []string{}
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,tool,tool" {
		t.Fatalf("roles = %s", got)
	}
	asst := r.Messages[1]
	if asst.Text() != "Read both files, then build." || len(asst.ToolCalls) != 3 {
		t.Fatalf("assistant message: %+v", asst)
	}
	wantIDs := []string{"c-read_file", "call_5_2", "c-run_shell"}
	wantContent := []string{"x = 1", "FAILED: No such file or directory", "PENDING: (no result yet)"}
	for i, tc := range asst.ToolCalls {
		if tc.ID != wantIDs[i] || tc.Type != "function" {
			t.Errorf("call %d: id %q type %q, want id %q", i, tc.ID, tc.Type, wantIDs[i])
		}
		res := r.Messages[2+i]
		if res.ToolCallID != tc.ID {
			t.Errorf("tool message %d answers %q, want %q", i, res.ToolCallID, tc.ID)
		}
		if res.Text() != wantContent[i] {
			t.Errorf("tool message %d: %q, want %q", i, res.Text(), wantContent[i])
		}
	}
	if asst.ToolCalls[2].Function.Arguments != `{"command":"make"}` {
		t.Errorf("arguments: %q", asst.ToolCalls[2].Function.Arguments)
	}
	if !strings.Contains(r.Markdown, "Result PENDING:\n```\n(no result yet)\n```") {
		t.Errorf("pending call in markdown:\n%s", r.Markdown)
	}

	// An iteration without calls is one assistant message with its thought.
	bare := fold.RenderL0(tok, &journal.Iteration{Number: 6, Thought: "Think."}, 0)
	if len(bare.Messages) != 1 || bare.Messages[0].Role != "assistant" || bare.Messages[0].Text() != "Think." {
		t.Errorf("thought-only iteration: %+v", bare.Messages)
	}
}

func TestRenderL0FenceOutlastsBackticks(t *testing.T) {
	t.Parallel()
	tok := tokenizer(t)
	out := "Here is the README:\n```go\nfunc main() {}\n```\nand an inline ```` run"
	it := &journal.Iteration{Number: 2, Status: journal.IterOK, Calls: []journal.ToolCall{
		call("read_file", `{"path":"README.md"}`, journal.StatusSuccess, out),
	}}
	md := fold.RenderL0(tok, it, 0).Markdown
	want := "Result SUCCESS:\n`````\n" + out + "\n`````\n"
	if !strings.Contains(md, want) {
		t.Fatalf("output with backtick runs of 3 and 4 should be fenced with 5:\n%s", md)
	}
	plain := fold.RenderL0(tok, &journal.Iteration{Number: 3, Calls: []journal.ToolCall{
		call("read_file", `{"path":"a.txt"}`, journal.StatusSuccess, "no ticks"),
	}}, 0).Markdown
	if !strings.Contains(plain, "\n```\nno ticks\n```\n") {
		t.Fatalf("plain output should use a three-backtick fence:\n%s", plain)
	}
}

// TestRenderL0CompactsAJSONOutput checks that an output that is one JSON
// document renders without its insignificant whitespace, every key and
// value kept, and so fits more of itself under the same bound; any other
// output, JSON-looking or not, renders as it came.
func TestRenderL0CompactsAJSONOutput(t *testing.T) {
	t.Parallel()
	tok := tokenizer(t)
	var flights []string
	for i := 1; i <= 12; i++ {
		flights = append(flights, fmt.Sprintf(`{"origin": "DFW", "destination": "SEA", "flight_number": "HAT%03d", "date": "2024-05-22", "price": %d}`, i, 100+i))
	}
	spaced := `{"reservation_id": "MSJ4OA", "flights": [` + strings.Join(flights, ", ") + `], "insurance": "yes"}`
	compact := strings.NewReplacer(`": `, `":`, `, "`, `,"`, `}, {`, `},{`).Replace(spaced)
	render := func(output string, limit int) string {
		it := &journal.Iteration{Number: 8, Status: journal.IterOK, Calls: []journal.ToolCall{
			call("get_reservation_details", `{"reservation_id":"MSJ4OA"}`, journal.StatusSuccess, output),
		}}
		return fold.RenderL0(tok, it, limit).Markdown
	}
	if got := render(spaced, 0); !strings.Contains(got, "\n"+compact+"\n") {
		t.Errorf("the JSON output did not render compacted:\n%s\nwant the line\n%s", got, compact)
	}
	// Indented, the same document renders the same way; raw history
	// counts the output as it came.
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(spaced), "", "  "); err != nil {
		t.Fatal(err)
	}
	it := &journal.Iteration{Number: 8, Status: journal.IterOK, Calls: []journal.ToolCall{
		call("get_reservation_details", `{"reservation_id":"MSJ4OA"}`, journal.StatusSuccess, indented.String()+"\n"),
	}}
	r := fold.RenderL0(tok, it, 0)
	if !strings.Contains(r.Markdown, "\n"+compact+"\n") {
		t.Errorf("the indented JSON output did not render compacted:\n%s", r.Markdown)
	}
	if want := r.MarkdownTokens + tok.Count(indented.String()+"\n") - tok.Count(compact); r.RawTokens != want {
		t.Errorf("RawTokens = %d, want %d: the rendering (%d) with the output as it came", r.RawTokens, want, r.MarkdownTokens)
	}
	// Under a bound the spaced form exceeds and the compact one does not,
	// the whole document shows: the last flight too.
	if s, c := tok.Count(spaced), tok.Count(compact); c >= s {
		t.Fatalf("compacted, the output counts %d tokens, spaced %d", c, s)
	} else if got := render(spaced, c); strings.Contains(got, "[output truncated") || !strings.Contains(got, `"flight_number":"HAT012"`) {
		t.Errorf("bounded at the compacted output's %d tokens (spaced %d), the output was cut:\n%s", c, s, got)
	}
	for _, out := range []string{
		"total 290\ndrwxr-xr-x  7 agent agent  4096 Oct  2 09:16 .",
		`{"status": "ok"} and then some text`,
		`[1, 2, 3`,
	} {
		if got := render(out, 0); !strings.Contains(got, "\n"+out+"\n") {
			t.Errorf("the output %q did not render as it came:\n%s", out, got)
		}
	}
}

// TestRenderL0CutsALongLineBetweenCharacters: an output of one long line
// (compacted JSON, a minified file) is cut where the estimate falls, not
// at a line; the cut must not split a character.
func TestRenderL0CutsALongLineBetweenCharacters(t *testing.T) {
	t.Parallel()
	tok := tokenizer(t)
	output := `{"note":"` + strings.Repeat("予約は確認済みです、座席は窓側。", 120) + `"}`
	for limit := 40; limit <= 90; limit++ {
		it := &journal.Iteration{Number: 3, Status: journal.IterOK, Calls: []journal.ToolCall{
			call("get_note", `{"id":"N1"}`, journal.StatusSuccess, output),
		}}
		r := fold.RenderL0(tok, it, limit)
		if !strings.Contains(r.Markdown, "[output truncated") {
			t.Fatalf("limit %d: the output was not cut", limit)
		}
		if !utf8.ValidString(r.Markdown) {
			t.Fatalf("limit %d: the cut split a character:\n%q", limit, r.Markdown)
		}
	}
}
