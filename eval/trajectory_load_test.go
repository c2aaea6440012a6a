package eval

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// miniTranscript is an agent fixing a parser, as OpenAI chat messages. Its
// steps (one per assistant message) call tools on these targets:
//
//	1 src/parser.py         5 pytest -q
//	2 config/settings.yaml  6 config/settings.yaml, src/parser.py
//	3 pytest -q ("the" is a stop word)  7 notes.txt
//	4 4096, token_limit, src/parser.py  8 notes.txt
//
// and step 9 calls nothing. The revisits are (4,1), (5,3), (6,2), (6,4)
// and (8,7); steps 4 and 7 have no output word, and nothing of step 7's
// call is left once step 8's own text is taken out, so (8,7) is skipped.
const miniTranscript = `[
 {"role": "system", "content": "You are a careful coding agent."},
 {"role": "user", "content": "Fix the token limit in the parser."},
 {"role": "assistant", "content": "Reading the parser.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/parser.py\"}"}}]},
 {"role": "tool", "tool_call_id": "c1", "content": "def parse(text):\n    return TOKEN_LIMIT\nimport yaml_loader\n"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"config/settings.yaml\"}"}}]},
 {"role": "tool", "tool_call_id": "c2", "content": "token_limit: 4096\nmode: strict\nimport_paths: none"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "run_shell", "arguments": "{\"command\": \"pytest -q\", \"cwd\": \"the\"}"}}]},
 {"role": "tool", "tool_call_id": "c3", "content": "FAILED test_parse: expected 4096, got 2048\nimport yaml_loader failed"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c4", "type": "function", "function": {"name": "edit_file", "arguments": "{\"path\": \"src/parser.py\", \"old\": \"TOKEN_LIMIT\", \"new\": \"4096\"}"}}]},
 {"role": "tool", "tool_call_id": "c4", "content": "ok"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c5", "type": "function", "function": {"name": "run_shell", "arguments": "{\"command\": \"pytest -q\"}"}}]},
 {"role": "tool", "tool_call_id": "c5", "content": "1 passed in 0.12s"},
 {"role": "assistant", "content": null, "tool_calls": [
   {"id": "c6", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"config/settings.yaml\"}"}},
   {"id": "c7", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/parser.py\"}"}}]},
 {"role": "tool", "tool_call_id": "c6", "content": "token_limit: 4096\nmode: strict"},
 {"role": "tool", "tool_call_id": "c7", "content": "def parse(text):\n    return 4096"},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c8", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"notes.txt\"}"}}]},
 {"role": "tool", "tool_call_id": "c8", "content": ""},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"notes.txt\"}"}}]},
 {"role": "tool", "tool_call_id": "c9", "content": ""},
 {"role": "assistant", "content": "Done: the limit is 4096."}
]`

// tauArray is miniTranscript n times in tau-bench's shape: objects with a
// task_id and the messages under "traj".
func tauArray(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`{"task_id": %d, "reward": 1.0, "traj": %s}`, 10+i, miniTranscript))
	}
	return "[" + strings.Join(parts, ",\n") + "]"
}

func TestLoadTranscriptsShapes(t *testing.T) {
	t.Parallel()
	var delta bytes.Buffer
	if err := synth.WriteJSONL(&delta, synth.Config{Seed: 3, Iterations: 4, RunID: "s3"}); err != nil {
		t.Fatal(err)
	}
	jsonl := `{"role": "user", "content": "hi"}` + "\n" + `{"role": "assistant", "content": "hello"}` + "\n"
	dir := t.TempDir()
	files := map[string]string{
		"a-array.json":     miniTranscript,
		"b-object.json":    `{"messages": ` + miniTranscript + `}`,
		"c-messages.jsonl": jsonl,
		"d-tau.json":       tauArray(2),
		"e-delta.jsonl":    delta.String(),
		"f-lines.jsonl":    `{"id": "x", "messages": [{"role": "user", "content": "a"}]}` + "\n" + `{"id": "y", "traj": [{"role": "user", "content": "b"}]}` + "\n",
		"notes.txt":        "not a transcript",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := LoadTranscripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names, formats []string
	for _, tr := range ts {
		names = append(names, tr.Name)
		formats = append(formats, tr.Format)
		if len(tr.Events) == 0 {
			t.Errorf("%s: no events", tr.Name)
		}
	}
	wantNames := []string{"a-array.json", "b-object.json", "c-messages.jsonl", "d-tau.json#10", "d-tau.json#11", "e-delta.jsonl", "f-lines.jsonl#0", "f-lines.jsonl#1"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("names %q, want %q", names, wantNames)
	}
	o, d := journal.FormatOpenAI, journal.FormatDelta
	if want := []string{o, o, o, o, o, d, o, o}; !slices.Equal(formats, want) {
		t.Errorf("formats %q, want %q", formats, want)
	}
	if len(ts[0].Events) != 20 || len(ts[3].Events) != 20 {
		t.Errorf("miniTranscript has 20 messages: got %d and %d events", len(ts[0].Events), len(ts[3].Events))
	}
}

func TestLoadTranscriptsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want string
		is   error
	}{
		{filepath.Join(dir, "missing.json"), "missing.json", os.ErrNotExist},
		{empty, "no *.json or *.jsonl file", ErrNoTranscripts},
		{write("blank.json", "  \n"), "blank.json: empty file", journal.ErrInvalidInput},
		{write("bad.jsonl", `{"seq": 1, "type": "RUN_START", "payload": {}}`+"\n"+`{"seq": 2,`+"\n"), "bad.jsonl:2: invalid JSON", journal.ErrInvalidInput},
		{write("role.json", `[{"role": "robot", "content": "x"}]`), "role.json: messages[0]: unknown role", journal.ErrInvalidInput},
		{write("tau.json", `[{"task_id": 1, "traj": [{"role": "tool", "content": "x"}]}]`), "tau.json#1: messages[0]", journal.ErrInvalidInput},
	} {
		_, err := LoadTranscripts(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want %q (%v)", filepath.Base(c.path), err, c.want, c.is)
		}
	}
}

// TestSynthTranscripts: synth:N generates N coding-agent runs with the
// long system prompt real agents have, each with revisit probes.
func TestSynthTranscripts(t *testing.T) {
	t.Parallel()
	ts, err := SynthTranscripts("synth:2x40")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name != "synth-1" || ts[1].Name != "synth-2" || ts[0].Format != journal.FormatDelta {
		t.Fatalf("transcripts %+v", ts)
	}
	prompt := false
	for _, e := range ts[0].Events {
		if e.Type == journal.TypeSystemPrompt && strings.Contains(string(e.Payload), "read_file") {
			prompt = true
		}
	}
	if !prompt {
		t.Error("no SYSTEM_PROMPT event with the agent manual")
	}
	if string(ts[0].Events[len(ts[0].Events)-1].Payload) == string(ts[1].Events[len(ts[1].Events)-1].Payload) && len(ts[0].Events) == len(ts[1].Events) {
		t.Error("seeds 1 and 2 gave the same run")
	}
	for _, bad := range []string{"synth:", "synth:0", "synth:x", "synth:3x1"} {
		if _, err := SynthTranscripts(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
