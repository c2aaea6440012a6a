package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// rawMCP drives `delta memory mcp` in a real process with JSON-RPC lines
// written to its stdin and read from its stdout, as a client does on the
// wire.
type rawMCP struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr strings.Builder
	nextID int
}

func startRawMCP(t *testing.T, args ...string) *rawMCP {
	t.Helper()
	m := &rawMCP{t: t, lines: make(chan string, 16)}
	m.cmd = deltaProcess(t, nil, append([]string{"memory", "mcp"}, args...)...)
	m.cmd.Stderr = &m.stderr
	var err error
	if m.stdin, err = m.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			m.lines <- sc.Text()
		}
		close(m.lines)
	}()
	t.Cleanup(func() {
		m.stdin.Close()
		m.cmd.Wait()
	})
	return m
}

// startRawMCPOnJournal imports journalText into a new database and
// serves it.
func startRawMCPOnJournal(t *testing.T) *rawMCP {
	t.Helper()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, context.Background(), "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	return startRawMCP(t, "--db", b.db)
}

// send writes one JSON-RPC message as a line.
func (m *rawMCP) send(msg map[string]any) {
	m.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		m.t.Fatal(err)
	}
	if _, err := m.stdin.Write(append(b, '\n')); err != nil {
		m.t.Fatalf("write to the server: %v", err)
	}
}

// call sends a request and returns its result, failing on a JSON-RPC
// error. Every line on stdout must be a JSON-RPC message: the server
// writes nothing else there.
func (m *rawMCP) call(method string, params any) json.RawMessage {
	m.t.Helper()
	m.nextID++
	id := m.nextID
	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	m.send(req)
	for {
		select {
		case line, ok := <-m.lines:
			if !ok {
				m.t.Fatalf("%s: the server closed stdout; stderr:\n%s", method, m.stderr.String())
			}
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      *int            `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.JSONRPC != "2.0" {
				m.t.Fatalf("stdout line is not a JSON-RPC message: %q", line)
			}
			if resp.ID == nil || *resp.ID != id {
				continue // a notification, or another request's answer
			}
			if resp.Error != nil {
				m.t.Fatalf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
			}
			return resp.Result
		case <-time.After(time.Minute):
			m.t.Fatalf("%s: no answer within a minute; stderr:\n%s", method, m.stderr.String())
		}
	}
}

// toolText is a tools/call result's text and whether it is a tool error.
func toolText(t *testing.T, result json.RawMessage) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("tools/call result: %v\n%s", err, result)
	}
	var texts []string
	for _, c := range r.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n"), r.IsError
}

// TestMCPRawJSONRPC speaks the protocol line by line: initialize, the
// initialized notification, tools/list, then tools/call.
func TestMCPRawJSONRPC(t *testing.T) {
	t.Parallel()
	m := startRawMCPOnJournal(t)

	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Capabilities map[string]any `json:"capabilities"`
	}
	res := m.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw-test", "version": "0"},
	})
	if err := json.Unmarshal(res, &init); err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != "2025-06-18" || init.ServerInfo.Name != "delta-memory" {
		t.Errorf("initialize: %s", res)
	}
	for _, c := range []string{"tools", "resources"} {
		if _, ok := init.Capabilities[c]; !ok {
			t.Errorf("initialize: no %s capability: %s", c, res)
		}
	}
	m.send(map[string]any{"method": "notifications/initialized"})

	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(m.call("tools/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"bookmark_memory", "memory_context", "memory_status", "milestone", "recall_memory", "unfold"}
	if !slices.Equal(names, want) {
		t.Errorf("tools/list names %v, want %v", names, want)
	}
	// recall_memory and bookmark_memory take what `delta memory tools` says.
	for _, d := range toolDefs() {
		fn := d["function"].(map[string]any)
		wantSchema, _ := json.Marshal(fn["parameters"])
		for _, tl := range list.Tools {
			if tl.Name == fn["name"] && !jsonEqual(t, tl.InputSchema, wantSchema) {
				t.Errorf("%s inputSchema %s, want the tools command's %s", tl.Name, tl.InputSchema, wantSchema)
			}
		}
	}

	text, isErr := toolText(t, m.call("tools/call", map[string]any{"name": "bookmark_memory", "arguments": map[string]any{"iteration": 1, "note": "the missing parser"}}))
	if isErr || !strings.Contains(text, "bookmarked iteration 1 of run run-1") {
		t.Errorf("bookmark_memory: error %v, text %q", isErr, text)
	}
	text, isErr = toolText(t, m.call("tools/call", map[string]any{"name": "memory_status"}))
	var st mcpStatus
	if isErr || json.Unmarshal([]byte(text), &st) != nil || st.Run.ID != "run-1" || st.Bookmarks != 1 || st.Window.Tokens <= 0 {
		t.Errorf("memory_status: error %v, text %s", isErr, text)
	}
	text, isErr = toolText(t, m.call("tools/call", map[string]any{"name": "bookmark_memory", "arguments": map[string]any{"iteration": 0}}))
	if !isErr || !strings.Contains(text, `"iteration"`) {
		t.Errorf("bookmark_memory with iteration 0: error %v, text %q; want a tool error naming the argument", isErr, text)
	}
	if err := m.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Wait(); err != nil {
		t.Errorf("the server did not exit cleanly once stdin closed: %v\n%s", err, m.stderr.String())
	}
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return fmt.Sprint(va) == fmt.Sprint(vb)
}

// TestMCPAnswersBeforeStdinEnds writes its requests and closes stdin at
// once, as a script piping requests into the server does: every request
// must still get its answer, and the server must then exit cleanly. (The
// SDK cancels what is in flight when its input ends; without answerFirst
// not even initialize was answered.)
func TestMCPAnswersBeforeStdinEnds(t *testing.T) {
	t.Parallel()
	m := startRawMCPOnJournal(t)
	m.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "pipe-test", "version": "0"},
	}})
	m.send(map[string]any{"method": "notifications/initialized"})
	m.send(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{"name": "memory_status"}})
	m.send(map[string]any{"id": "three", "method": "tools/call", "params": map[string]any{
		"name": "recall_memory", "arguments": map[string]any{"keywords": []string{"parser", "src/parser.py"}, "limit": 2}}})
	if err := m.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	answered := map[string]string{}
	timeout := time.After(time.Minute)
	for done := false; !done; {
		select {
		case line, ok := <-m.lines:
			if !ok {
				done = true
				break
			}
			var resp struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil {
				t.Fatalf("stdout line is not JSON: %q", line)
			}
			answered[string(resp.ID)] = string(resp.Result)
		case <-timeout:
			t.Fatalf("no end of output within a minute; answered %v; stderr:\n%s", answered, m.stderr.String())
		}
	}
	for _, id := range []string{"1", "2", `"three"`} {
		if answered[id] == "" {
			t.Errorf("request %s got no answer; answered: %v; stderr:\n%s", id, answered, m.stderr.String())
		}
	}
	if r := answered[`"three"`]; !strings.Contains(r, "src/parser.py") || strings.Contains(r, `"isError":true`) {
		t.Errorf("recall_memory with a list of keywords: %s", r)
	}
	if err := m.cmd.Wait(); err != nil {
		t.Errorf("the server did not exit cleanly: %v\n%s", err, m.stderr.String())
	}
}
