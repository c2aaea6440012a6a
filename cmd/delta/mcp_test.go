package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpBundle is a workspace with a synthetic run imported in part, and an
// SDK client session with `delta memory mcp` on it in a real process.
type mcpBundle struct {
	*testBundle
	ctx     context.Context
	session *mcp.ClientSession
	journal string
	// full is the whole journal; the file holds it but for its last 60
	// lines until a test appends them.
	full string
}

const mcpBudget = "4000"

func setupMCP(t *testing.T) *mcpBundle {
	t.Helper()
	b := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	data, err := os.ReadFile(b.synthJournal(t, 120))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	m := &mcpBundle{testBundle: b, ctx: ctx, full: string(data)}
	m.journal = b.write(t, "run.jsonl", strings.Join(lines[:len(lines)-60], ""))
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, "--budget", mcpBudget, m.journal); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "delta-memory-test", Version: "0"}, nil)
	cmd := deltaProcess(t, nil, "memory", "mcp", "--db", b.db, "--budget", mcpBudget)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if m.session, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := m.session.Close(); err != nil {
			t.Errorf("close the session: %v\n%s", err, stderr.String())
		}
	})
	return m
}

// call calls a tool and returns its text, failing when the call fails or
// when its being a tool error is not wantErr.
func (m *mcpBundle) call(t *testing.T, name string, args map[string]any, wantErr bool) string {
	t.Helper()
	res, err := m.session.CallTool(m.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError != wantErr {
		t.Fatalf("%s(%v): tool error %v, want %v:\n%s", name, args, res.IsError, wantErr, text)
	}
	return text
}

func (m *mcpBundle) status(t *testing.T) mcpStatus {
	t.Helper()
	var st mcpStatus
	if text := m.call(t, "memory_status", nil, false); json.Unmarshal([]byte(text), &st) != nil {
		t.Fatalf("memory_status is not its JSON: %s", text)
	}
	return st
}

// read reads a resource's text.
func (m *mcpBundle) read(t *testing.T, uri string) string {
	t.Helper()
	res, err := m.session.ReadResource(m.ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	return res.Contents[0].Text
}

// TestMCPClientCallsEveryTool drives the server through the SDK's own
// client: every tool, both resources, and a bad argument after which the
// server still answers.
func TestMCPClientCallsEveryTool(t *testing.T) {
	t.Parallel()
	m := setupMCP(t)

	tools, err := m.session.ListTools(m.ctx, nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	templates, err := m.session.ListResourceTemplates(m.ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 2 {
		t.Fatalf("resources/templates/list: %v, %+v", err, templates)
	}

	st := m.status(t)
	if st.Run.ID != "synth" || st.Run.Iterations < 50 || st.Blocks.Count == 0 || st.Window.Budget != 4000 || st.Window.Tokens > 4000 {
		t.Fatalf("memory_status: %+v", st)
	}

	// Recall what a folded block holds: one of its entities.
	var shown struct {
		Blocks []blockJSON `json:"blocks"`
	}
	out, _, _ := m.run(t, m.ctx, "memory", "show", "--json", "--db", m.db)
	if err := json.Unmarshal([]byte(out), &shown); err != nil || len(shown.Blocks) == 0 || len(shown.Blocks[0].Entities) == 0 {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	key := shown.Blocks[0].Entities[0]
	if text := m.call(t, "recall_memory", map[string]any{"keywords": key, "limit": 3}, false); !strings.Contains(text, "recorded") || !strings.Contains(text, key) {
		t.Errorf("recall_memory(%q): %s", key, text)
	}
	if st := m.status(t); st.Recalls.Total == 0 || st.Recalls.Active == 0 {
		t.Errorf("after recall_memory, memory_status recalls %+v", st.Recalls)
	}

	if text := m.call(t, "bookmark_memory", map[string]any{"iteration": 3, "note": "the first plan"}, false); !strings.Contains(text, "bookmarked iteration 3") {
		t.Errorf("bookmark_memory: %s", text)
	}
	full := m.call(t, "memory_context", nil, false)
	if !strings.Contains(full, "## Static") || !strings.Contains(full, "the first plan") {
		t.Errorf("memory_context holds no bookmark note:\n%s", full)
	}
	if small := m.call(t, "memory_context", map[string]any{"budget": 1500}, false); !strings.Contains(small, "## Static") || len(small) >= len(full) {
		t.Errorf("memory_context under 1500 tokens is %d bytes, under 4000 %d:\n%s", len(small), len(full), small)
	}

	// A sub-agent's context: the subtask, what recall found for it, none
	// of the parent's window.
	sub := m.call(t, "memory_context", map[string]any{"budget": 2000, "subtask": "rerun the failing cache tests"}, false)
	if !strings.Contains(sub, "### Subtask\nrerun the failing cache tests") || strings.Contains(sub, "## Working memory") {
		t.Errorf("memory_context with a subtask:\n%s", sub)
	}
	if text := m.call(t, "memory_context", map[string]any{"subtask": " "}, true); !strings.Contains(text, `"subtask"`) {
		t.Errorf("memory_context with an empty subtask: %s", text)
	}

	// A bad argument is a tool error that names it, and the server goes on.
	if text := m.call(t, "recall_memory", map[string]any{"keywords": key, "limit": 50}, true); !strings.Contains(text, `"limit"`) || !strings.Contains(text, "1 to 20") {
		t.Errorf("recall_memory with limit 50: %s", text)
	}
	if text := m.call(t, "unfold", map[string]any{}, true); !strings.Contains(text, `"block_id"`) {
		t.Errorf("unfold without block_id: %s", text)
	}
	if text := m.call(t, "unfold", map[string]any{"block_id": "L9-1-2"}, true); !strings.Contains(text, "block not found") {
		t.Errorf("unfold of a block that is not there: %s", text)
	}

	id := shown.Blocks[len(shown.Blocks)-1].ID
	if text := m.call(t, "unfold", map[string]any{"block_id": id}, false); !strings.Contains(text, "unfolded "+id) {
		t.Errorf("unfold %s: %s", id, text)
	}
	if text := m.call(t, "milestone", map[string]any{"title": "first half done"}, false); !strings.Contains(text, "chapter L3-") {
		t.Errorf("milestone: %s", text)
	}

	if text := m.read(t, "memory://runs/synth/context"); !strings.Contains(text, "## Static") || !strings.Contains(text, "first half done") {
		t.Errorf("the context resource is not the window:\n%s", text)
	}
	var rst mcpStatus
	if text := m.read(t, "memory://runs/synth/status"); json.Unmarshal([]byte(text), &rst) != nil || rst.Run.ID != "synth" || rst.Bookmarks != 1 {
		t.Errorf("the status resource: %s", text)
	}
	if _, err := m.session.ReadResource(m.ctx, &mcp.ReadResourceParams{URI: "memory://runs/no-such-run/status"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("reading a run that is not there: %v, want resource not found", err)
	}
}

// TestMCPSeesWhatOthersAppend appends to the journal and imports it in
// another process between two calls: the next call sees the new
// iterations, with no restart.
func TestMCPSeesWhatOthersAppend(t *testing.T) {
	t.Parallel()
	m := setupMCP(t)
	before := m.status(t).Run.Iterations
	if err := os.WriteFile(m.journal, []byte(m.full), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := deltaProcess(t, nil, "memory", "import", "--db", m.db, "--budget", mcpBudget, m.journal).CombinedOutput(); err != nil {
		t.Fatalf("import in another process: %v\n%s", err, out)
	}
	after := m.status(t).Run.Iterations
	if after != 120 || before >= after {
		t.Fatalf("memory_status: %d iterations before the import, %d after; want fewer, then 120", before, after)
	}
	if text := m.call(t, "memory_context", nil, false); !strings.Contains(text, fmt.Sprintf("Iteration %d", after)) {
		t.Errorf("memory_context does not show iteration %d:\n%s", after, text)
	}
	if text := m.read(t, "memory://runs/synth/context"); !strings.Contains(text, fmt.Sprintf("Iteration %d", after)) {
		t.Errorf("the context resource does not show iteration %d", after)
	}
}
