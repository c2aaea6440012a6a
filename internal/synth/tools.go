package synth

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/delta-memory/delta-memory/journal"
)

// Tool names as the agent's model calls them.
const (
	toolRead   = "read_file"
	toolWrite  = "write_file"
	toolShell  = "run_shell"
	toolSearch = "search_code"
	toolList   = "list_dir"
	toolHTTP   = "http_get"
)

// Tool arguments, marshaled into THOUGHT tool calls and ACTION_REQUEST.
type (
	pathArgs struct {
		Path string `json:"path"`
	}
	writeArgs struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	shellArgs struct {
		Command string `json:"command"`
	}
	searchArgs struct {
		Query string `json:"query"`
		Path  string `json:"path"`
	}
	httpArgs struct {
		URL string `json:"url"`
	}
)

// call is one tool call of an iteration together with its outcome.
type call struct {
	tool    string
	args    any
	command string // ACTION_REQUEST.resolved_command
	status  string
	output  string // observation_content, already capped
	total   int    // output size before truncation
	durMS   int    // time from request to result
}

func newCall(tool string, args any, command string, durMS int) *call {
	return &call{tool: tool, args: args, command: command, durMS: durMS}
}

func readCall(r *rand.Rand, p string) *call {
	return newCall(toolRead, pathArgs{p}, "cat "+p, between(r, 15, 180))
}

func listCall(r *rand.Rand, dir string) *call {
	return newCall(toolList, pathArgs{dir}, "ls -la "+dir, between(r, 10, 90))
}

func searchCall(r *rand.Rand, query, dir string) *call {
	return newCall(toolSearch, searchArgs{query, dir}, fmt.Sprintf("grep -rn %q %s", query, dir), between(r, 40, 900))
}

func shellCall(cmd string, durMS int) *call {
	return newCall(toolShell, shellArgs{cmd}, cmd, durMS)
}

func httpCall(r *rand.Rand, url string) *call {
	return newCall(toolHTTP, httpArgs{url}, "curl -sS -L '"+url+"'", between(r, 60, 2500))
}

func writeCall(r *rand.Rand, p, content string) *call {
	return newCall(toolWrite, writeArgs{p, content}, fmt.Sprintf("tee %s > /dev/null  # %d bytes", p, len(content)), between(r, 10, 120))
}

// ok completes c as a success whose output fill writes.
func (g *Generator) ok(c *call, target int, fill fillFunc) *call {
	c.status = journal.StatusSuccess
	c.output, c.total = g.render(target, fill)
	return c
}

// okText completes c as a success with a fixed output.
func (g *Generator) okText(c *call, text string) *call {
	return g.ok(c, len(text), lit(text))
}

// fail completes c with status (FAILED or ERROR). A non-zero exit appends
// "[exit status N]", which survives truncation.
func (g *Generator) fail(c *call, status string, exit, target int, fill fillFunc) *call {
	c.status = status
	trailer := ""
	if exit != 0 {
		trailer = fmt.Sprintf("\n[exit status %d]", exit)
	}
	c.output, c.total = g.renderTrailer(target, fill, trailer)
	return c
}

// lit returns a fill function that writes s.
func lit(s string) fillFunc { return func(o *out, _ *rand.Rand) { o.line(s) } }

// emitIteration emits the THOUGHT and, for each call, its ACTION_REQUEST and
// ACTION_RESULT. A truncated large output is followed by a WARN.
func (g *Generator) emitIteration(thought string, calls []*call) {
	specs := make([]journal.ToolCallSpec, len(calls))
	args := make([]string, len(calls))
	for i, c := range calls {
		args[i] = g.enc.marshalString(c.args)
		specs[i] = journal.ToolCallSpec{
			ID: fmt.Sprintf("call_%06d_%d", g.iter, i+1), Type: "function",
			Function: journal.FunctionCall{Name: c.tool, Arguments: args[i]},
		}
	}
	g.emit(journal.TypeThought, journal.ThoughtPayload{
		Content: thought, LLMInvocationRef: fmt.Sprintf("llm_inv_%06d", g.iter), ToolCalls: specs,
	}, between(g.rng, 1500, 4000)+len(thought)*8)
	for i, c := range calls {
		id := specs[i].ID
		g.emit(journal.TypeActionRequest, journal.ActionRequestPayload{
			ActionID: id, ToolName: c.tool, ToolArgs: json.RawMessage(args[i]), ResolvedCommand: c.command,
		}, between(g.rng, 20, 400))
		g.emit(journal.TypeActionResult, journal.ActionResultPayload{
			ActionID: id, Status: c.status, ObservationContent: c.output,
			ExecutionRef: fmt.Sprintf("exec_%06d_%d", g.iter, i+1),
		}, c.durMS)
		if c.total > len(c.output) && c.total >= 16_000 {
			g.emit(journal.TypeSystemMessage, journal.SystemMessagePayload{
				Level: "WARN", Content: fmt.Sprintf("tool output truncated: %s produced %d bytes, kept the first %d", id, c.total, len(c.output)),
			}, 1+c.total%17) // no draw from g.rng: the cap must not change the rest of the run
		}
	}
}
