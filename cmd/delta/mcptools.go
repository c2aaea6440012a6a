package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// mcpTool is one tool the server offers: its definition, the argument
// names it takes, and what a call does. call returns the text the model
// reads and, when there is one, the same answer as a JSON value.
type mcpTool struct {
	tool *mcp.Tool
	args []string
	call func(ctx context.Context, a toolArgs) (text string, structured any, err error)
}

// tools lists the server's tools. recall_memory and bookmark_memory take
// their names, descriptions and schemas from toolDefs, so that an MCP
// client sees what `delta memory tools` prints.
func (s *mcpServer) tools() []mcpTool {
	defs := map[string]*mcp.Tool{}
	for _, d := range toolDefs() {
		fn := d["function"].(map[string]any)
		name := fn["name"].(string)
		defs[name] = &mcp.Tool{Name: name, Description: fn["description"].(string), InputSchema: fn["parameters"]}
	}
	defs["recall_memory"].Annotations = &mcp.ToolAnnotations{Title: "Recall memory", OpenWorldHint: ptr(false)}
	defs["bookmark_memory"].Annotations = &mcp.ToolAnnotations{Title: "Bookmark an iteration", IdempotentHint: true, OpenWorldHint: ptr(false)}
	return []mcpTool{
		{tool: defs["recall_memory"], args: []string{"keywords", "limit"}, call: s.recall},
		{tool: defs["bookmark_memory"], args: []string{"iteration", "note"}, call: s.bookmark},
		{tool: &mcp.Tool{
			Name:        "memory_context",
			Description: "Return your context window as Markdown: task, folded chapters and summaries, the newest iterations in full, recalled detail, and the current goal. It never exceeds the budget in tokens. With subtask, return instead the context for a sub-agent you hand that piece of work to: the task, the subtask, what memory recalls for it and the runtime state, nothing of the rest of your window.",
			InputSchema: objectSchema(map[string]any{
				"budget":  map[string]any{"type": "integer", "minimum": 500, "description": "token budget of the window (default: the server's --budget, else the configured one)"},
				"subtask": map[string]any{"type": "string", "description": "the sub-agent's piece of work, in words, e.g. \"find which port the metrics server listens on\""},
			}),
			Annotations: &mcp.ToolAnnotations{Title: "Context window", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
		}, args: []string{"budget", "subtask"}, call: s.context},
		{tool: &mcp.Tool{
			Name:        "memory_status",
			Description: "Summarize the run's memory as JSON: the run, its journal counts, the folded blocks shown, the window's tokens and budget, recalls and bookmarks, and the LLM summaries still awaited.",
			InputSchema: objectSchema(map[string]any{}),
			Annotations: &mcp.ToolAnnotations{Title: "Memory status", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
		}, call: s.status},
		{tool: &mcp.Tool{
			Name:        "milestone",
			Description: "Declare a phase of your work done: everything since the previous milestone is folded into one chapter named by the title, which frees room in your context.",
			InputSchema: objectSchema(map[string]any{
				"title": map[string]any{"type": "string", "description": "what the phase achieved, e.g. \"parser fixed\""},
			}, "title"),
			Annotations: &mcp.ToolAnnotations{Title: "Declare a milestone", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, args: []string{"title"}, call: s.milestone},
		{tool: &mcp.Tool{
			Name:        "unfold",
			Description: "Show a folded block again as the blocks it absorbed, or as its iterations in full. Block ids are in memory_status and in the context's headings.",
			InputSchema: objectSchema(map[string]any{
				"block_id": map[string]any{"type": "string", "description": "the block to unfold, e.g. \"L3-1-48\""},
			}, "block_id"),
			Annotations: &mcp.ToolAnnotations{Title: "Unfold a block", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, args: []string{"block_id"}, call: s.unfold},
	}
}

// objectSchema is a JSON schema for an arguments object that takes props.
func objectSchema(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": nonNil(required), "additionalProperties": false}
}

func ptr[T any](v T) *T { return &v }

// handle turns a tool into an MCP handler. Whatever goes wrong in a call,
// a bad argument, a failed engine call or even a panic, becomes a tool
// error the model can read and act on; the server goes on serving.
func (s *mcpServer) handle(t mcpTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(s.e.stderr, "delta memory mcp: %s panicked: %v\n%s", t.tool.Name, p, debug.Stack())
				res, err = errorResult(fmt.Errorf("%s failed inside the server: %v", t.tool.Name, p)), nil
			}
		}()
		a, err := parseToolArgs(t.tool.Name, req.Params.Arguments, t.args...)
		if err != nil {
			return errorResult(err), nil
		}
		text, structured, err := t.call(ctx, a)
		if err != nil {
			return errorResult(err), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}, nil
	}
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: toolError(err)}}, IsError: true}
}

// onRun runs f on a freshly opened engine and the run (see
// mcpServer.open), under budget when it is > 0, and closes the engine.
func (s *mcpServer) onRun(ctx context.Context, budget int, f func(*memory.Engine, journal.Run) (string, any, error)) (string, any, error) {
	eng, run, err := s.open(ctx, "", budget)
	if err != nil {
		return "", nil, err
	}
	defer eng.Close()
	return f(eng, run)
}

// recall is recall_memory: `delta memory retrieve --keyword KEYWORDS
// [--limit LIMIT]`.
func (s *mcpServer) recall(ctx context.Context, a toolArgs) (string, any, error) {
	keys, err := a.words("keywords", true, "data/cache_3d5a4.json RETRY_BUDGET")
	if err != nil {
		return "", nil, err
	}
	limit, err := a.integer("limit", false, 1, 20)
	if err != nil {
		return "", nil, err
	}
	return s.onRun(ctx, 0, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		q := recall.Query{Keywords: keys, Limit: limit}
		hits, err := eng.Retrieve(ctx, run, q)
		if err != nil {
			return "", nil, err
		}
		var out bytes.Buffer
		printRetrieved(env{stdout: &out}, q, hits, fillsBefore(eng, q, run))
		return out.String(), map[string]any{"query": q.Text(), "hits": nonNil(hits)}, nil
	})
}

// bookmark is bookmark_memory: `delta memory bookmark --iteration N
// --note NOTE`.
func (s *mcpServer) bookmark(ctx context.Context, a toolArgs) (string, any, error) {
	n, err := a.integer("iteration", true, 1, 0)
	if err != nil {
		return "", nil, err
	}
	note, err := a.str("note", false, "")
	if err != nil {
		return "", nil, err
	}
	return s.onRun(ctx, 0, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		if err := eng.Fold.AddBookmark(ctx, run, n, note); err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("bookmarked iteration %d of run %s\n", n, run.ID), map[string]any{"run": run.ID, "iteration": n, "note": note}, nil
	})
}

// context is memory_context: `delta memory context --budget B
// [--subtask TEXT]`.
func (s *mcpServer) context(ctx context.Context, a toolArgs) (string, any, error) {
	budget, err := a.integer("budget", false, 500, 0)
	if err != nil {
		return "", nil, err
	}
	subtask, err := a.str("subtask", false, "find which port the metrics server listens on")
	if err != nil {
		return "", nil, err
	}
	return s.onRun(ctx, budget, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		var cx *window.Context
		if a.has("subtask") {
			cx, err = eng.SubtaskContext(ctx, run, subtask, "")
			if errors.Is(err, recall.ErrEmptyQuery) {
				return "", nil, fmt.Errorf("%s: argument \"subtask\" is empty; pass the sub-agent's work in words, e.g. %q", a.tool, "find which port the metrics server listens on")
			}
		} else {
			cx, err = eng.Context(ctx, run, memory.ContextOptions{})
		}
		if err != nil {
			return "", nil, err
		}
		return cx.Markdown(), nil, nil
	})
}

// status is memory_status: the figures of `delta memory show --json`.
func (s *mcpServer) status(ctx context.Context, _ toolArgs) (string, any, error) {
	return s.onRun(ctx, 0, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		st, err := statusOf(ctx, eng, run)
		if err != nil {
			return "", nil, err
		}
		text, err := json.MarshalIndent(st, "", "  ")
		return string(text), st, err
	})
}

// milestone is `delta memory milestone TITLE`.
func (s *mcpServer) milestone(ctx context.Context, a toolArgs) (string, any, error) {
	title, err := a.str("title", true, "parser fixed")
	if err != nil {
		return "", nil, err
	}
	return s.onRun(ctx, 0, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		defer warnLLM(s.e, eng)
		if _, err := eng.Scheduler.Step(ctx, run.ID); err != nil {
			return "", nil, err
		}
		step, err := eng.Milestone(ctx, run, strings.TrimSpace(title))
		if err != nil {
			return "", nil, err
		}
		var out strings.Builder
		for _, f := range step.Folds {
			if f.Trigger == "milestone" {
				fmt.Fprintf(&out, "chapter %s: iterations %d-%d\n", f.Block, f.First, f.Last)
			}
		}
		if out.Len() == 0 {
			out.WriteString("milestone recorded; no new chapter was folded\n")
		}
		return out.String(), step, nil
	})
}

// unfold is `delta memory unfold BLOCK_ID`.
func (s *mcpServer) unfold(ctx context.Context, a toolArgs) (string, any, error) {
	id, err := a.str("block_id", true, "L3-1-48")
	if err != nil {
		return "", nil, err
	}
	return s.onRun(ctx, 0, func(eng *memory.Engine, run journal.Run) (string, any, error) {
		b, err := eng.Folder.Unfold(ctx, run, strings.TrimSpace(id))
		if errors.Is(err, fold.ErrBlockNotFound) {
			return "", nil, withHint(err, "pass a block id that memory_status lists under blocks.shown")
		}
		if err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("unfolded %s: iterations %d-%d show again\n", b.ID, b.First, b.Last), toBlockJSON(b), nil
	})
}
