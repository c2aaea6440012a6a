package journal

import (
	"encoding/json"
	"strings"
)

// runHead is what grouping learns about the run itself from the events that
// are not part of any iteration.
type runHead struct {
	task, systemPrompt, agentRef string
	runID                        string
	status                       string
}

// grouper assigns events to iterations as they arrive, one at a time. It holds
// only the open (newest) iteration, so appending to a long run costs the same
// as appending to a short one.
type grouper struct {
	head runHead
	// last is the number of the newest iteration, 0 before the first.
	last int
	// cur is the open iteration, nil before the first.
	cur *Iteration
	// keepEvents makes the grouper keep raw events on each iteration.
	keepEvents bool
	// done receives every iteration the grouper moves past that changed
	// since it was opened or loaded.
	done func(*Iteration)
	// dirty says whether cur changed since it was opened or loaded.
	dirty bool
	// light makes the grouper read only ids, names and statuses of THOUGHT
	// and ACTION_* payloads: enough for the append path's counts and
	// pairing, without decoding thoughts and outputs.
	light bool
}

// add assigns e to an iteration, starting a new one where the grouping rules
// say so:
//   - a THOUGHT opens an iteration, unless the open one was started by a user
//     message and has no thought yet, in which case it joins that one;
//   - a USER_MESSAGE before the first THOUGHT is part of the task; a later one
//     opens the next iteration (which its THOUGHT will then join);
//   - every other event belongs to the open iteration, or to the run if none.
func (g *grouper) add(e Event) error {
	switch e.Type {
	case TypeThought:
		p, err := g.thought(e)
		if err != nil {
			return err
		}
		if g.cur == nil || g.cur.ThoughtSeq != 0 {
			g.open(e)
		}
		g.cur.ThoughtSeq = e.Seq
		g.cur.Thought = p.Content
		for _, tc := range p.ToolCalls {
			g.cur.Calls = append(g.cur.Calls, ToolCall{
				ID: tc.ID, Name: tc.Function.Name, Args: argsJSON(tc.Function.Arguments), RequestSeq: e.Seq,
			})
		}
	case TypeUserMessage:
		p, err := e.UserMessage()
		if err != nil {
			return err
		}
		if g.cur == nil {
			if g.head.task == "" {
				g.head.task = p.Content
			}
			return nil
		}
		if g.cur.ThoughtSeq != 0 {
			g.open(e)
		}
		g.cur.User = append(g.cur.User, p.Content)
	case TypeActionRequest:
		p, err := g.actionRequest(e)
		if err != nil {
			return err
		}
		if g.cur == nil {
			return nil
		}
		g.request(e, p)
	case TypeActionResult:
		p, err := g.actionResult(e)
		if err != nil {
			return err
		}
		if g.cur == nil {
			return nil
		}
		g.result(e, p)
	case TypeSystemMessage:
		p, err := e.SystemMessage()
		if err != nil {
			return err
		}
		if g.cur != nil {
			g.cur.Notes = append(g.cur.Notes, Note{Level: p.Level, Content: p.Content})
		}
	case TypeRunStart:
		p, err := e.RunStart()
		if err != nil {
			return err
		}
		g.head.runID, g.head.agentRef = p.RunID, p.AgentRef
		if p.Task != "" && g.head.task == "" {
			g.head.task = p.Task
		}
	case TypeRunEnd:
		p, err := e.RunEnd()
		if err != nil {
			return err
		}
		g.head.status = p.Status
	case TypeSystemPrompt:
		p, err := e.SystemPrompt()
		if err != nil {
			return err
		}
		if g.head.systemPrompt == "" {
			g.head.systemPrompt = p.Content
		}
	}
	g.extend(e)
	return nil
}

func (g *grouper) thought(e Event) (ThoughtPayload, error) {
	if g.light {
		return liteThought(e)
	}
	return e.Thought()
}

func (g *grouper) actionRequest(e Event) (ActionRequestPayload, error) {
	if g.light {
		return liteRequest(e)
	}
	return e.ActionRequest()
}

func (g *grouper) actionResult(e Event) (ActionResultPayload, error) {
	if g.light {
		return liteResult(e)
	}
	return e.ActionResult()
}

// resumeAt prepares g to group events that start at iteration n, as when
// reading a range or continuing a stored run. The placeholder iteration has
// a thought already, so the first event (a THOUGHT or a USER_MESSAGE) opens n.
func (g *grouper) resumeAt(n int) {
	g.last = n - 1
	g.cur = &Iteration{Number: n - 1, ThoughtSeq: -1}
	g.dirty = false
}

// open closes the current iteration and starts the next one at e.
func (g *grouper) open(e Event) {
	g.flush()
	g.last++
	g.cur = &Iteration{Number: g.last, FirstSeq: e.Seq, LastSeq: e.Seq, Start: e.Timestamp, End: e.Timestamp}
	g.dirty = true
}

// extend stretches the open iteration's range over e.
func (g *grouper) extend(e Event) {
	if g.cur == nil {
		return
	}
	g.cur.LastSeq = e.Seq
	g.dirty = true
	if !e.Timestamp.IsZero() {
		g.cur.End = e.Timestamp
	}
	if g.keepEvents {
		g.cur.Events = append(g.cur.Events, e)
	}
	g.cur.refresh()
}

// flush hands the open iteration to done.
func (g *grouper) flush() {
	if g.cur != nil && g.done != nil && g.dirty {
		g.done(g.cur)
	}
	g.cur, g.dirty = nil, false
}

// request enriches the call the THOUGHT announced, or adds one if the request
// names an id the thought did not.
func (g *grouper) request(e Event, p ActionRequestPayload) {
	if c := g.findCall(p.ActionID, func(c *ToolCall) bool { return c.Command == "" }); c != nil {
		if len(p.ToolArgs) > 0 && string(p.ToolArgs) != "null" {
			c.Args = p.ToolArgs
		}
		if c.Name == "" {
			c.Name = p.ToolName
		}
		c.Command = p.ResolvedCommand
		return
	}
	g.cur.Calls = append(g.cur.Calls, ToolCall{
		ID: p.ActionID, Name: p.ToolName, Args: argsOrEmpty(p.ToolArgs), Command: p.ResolvedCommand, RequestSeq: e.Seq,
	})
}

// result pairs a result with the newest call of the same id that has none.
func (g *grouper) result(e Event, p ActionResultPayload) {
	res := &ToolResult{Seq: e.Seq, Status: p.Status, Output: p.ObservationContent}
	if c := g.findCall(p.ActionID, func(c *ToolCall) bool { return c.Result == nil }); c != nil {
		c.Result = res
		return
	}
	name := p.ToolName
	if name == "" {
		name = "unknown"
	}
	g.cur.Calls = append(g.cur.Calls, ToolCall{ID: p.ActionID, Name: name, Args: json.RawMessage("{}"), Result: res, Orphan: true})
}

func (g *grouper) findCall(id string, ok func(*ToolCall) bool) *ToolCall {
	for i := len(g.cur.Calls) - 1; i >= 0; i-- {
		c := &g.cur.Calls[i]
		if c.ID == id && ok(c) {
			return c
		}
	}
	return nil
}

// argsJSON turns the model's argument string into a JSON value. Models do
// emit invalid JSON; such arguments are kept as a JSON string.
func argsJSON(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func argsOrEmpty(a json.RawMessage) json.RawMessage {
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}")
	}
	return a
}
