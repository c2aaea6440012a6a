package fold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// DefaultMaxOutputTokens is the size from which an L0 tool output shows only
// its head and tail.
const DefaultMaxOutputTokens = 2000

// Message is an OpenAI chat-completions message as the window emits it.
type Message struct {
	Role       string    `json:"role"`
	Content    *string   `json:"content"`
	ToolCalls  []MsgCall `json:"tool_calls,omitempty"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
	Name       string    `json:"name,omitempty"`
}

// MsgCall is a tool call inside an assistant Message.
type MsgCall struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function MsgFunction `json:"function"`
}

// MsgFunction names the function a MsgCall invokes.
type MsgFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Text returns a Message's content, "" for null.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// StrPtr returns a pointer to s, for Message.Content.
func StrPtr(s string) *string { return &s }

// MessageTokens counts a message the way chat models are billed: a few
// tokens of framing, the content, and each tool call's name and arguments.
func MessageTokens(tok scoring.Tokenizer, m Message) int {
	n := 4 + tok.Count(m.Text())
	for _, c := range m.ToolCalls {
		n += 4 + tok.Count(c.Function.Name) + tok.Count(c.Function.Arguments)
	}
	if m.ToolCallID != "" {
		n += 2
	}
	return n
}

// MessagesTokens sums MessageTokens over msgs.
func MessagesTokens(tok scoring.Tokenizer, msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += MessageTokens(tok, m)
	}
	return n
}

// messagesBound bounds the tokens of an iteration's messages from its
// Markdown count, instead of tokenizing its outputs a second time: the
// Markdown holds every message's content plus labels and fences, and each
// message adds MessageTokens' framing (4 tokens, 2 more for a tool message)
// and splits the text at one more place, which can cost a token at each end.
func messagesBound(markdownTokens int, msgs []Message) int {
	return markdownTokens + 8*len(msgs)
}

// L0 is an iteration rendered in full, in both output forms, with the token
// count of each.
type L0 struct {
	Markdown       string
	MarkdownTokens int
	Messages       []Message
	MessagesTokens int
	// RawTokens is the Markdown's count with every tool output whole: the
	// iteration as raw history, before any cut.
	RawTokens int
}

// RenderL0 renders an iteration in full. A tool output that is one JSON
// document shows compacted (CompactOutput); one over maxOutput tokens
// shows its head and tail and a note on how to see all of it. The
// runtime's system notes are left out: the Dynamic partition shows them.
// RawTokens counts the outputs as they came.
func RenderL0(tok scoring.Tokenizer, it *journal.Iteration, maxOutput int) L0 {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutputTokens
	}
	var md strings.Builder
	var msgs []Message
	fmt.Fprintf(&md, "#### Iteration %d (%s)\n", it.Number, it.Status)
	for _, u := range it.User {
		fmt.Fprintf(&md, "User: %s\n", u)
		msgs = append(msgs, Message{Role: "user", Content: StrPtr(u)})
	}
	if it.Thought != "" {
		fmt.Fprintf(&md, "Thought: %s\n", it.Thought)
	}
	asst := Message{Role: "assistant"}
	if it.Thought != "" || len(it.Calls) == 0 {
		asst.Content = StrPtr(it.Thought)
	}
	var results []Message
	cut := 0 // tokens the outputs' cuts left out
	for i := range it.Calls {
		c := &it.Calls[i]
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", it.Number, i+1)
		}
		args := compactJSON(c.Args)
		fmt.Fprintf(&md, "Call %s %s\n", c.Name, args)
		if c.Command != "" && !strings.Contains(args, c.Command) {
			fmt.Fprintf(&md, "$ %s\n", c.Command)
		}
		out, status := "(no result yet)", "PENDING"
		if c.Result != nil {
			var whole int
			shown := CompactOutput(c.Result.Output)
			out, whole = reduceOutput(tok, shown, maxOutput, it.Number)
			status = c.Result.Status
			if whole > 0 {
				cut += whole - tok.Count(out)
			}
			if len(shown) < len(c.Result.Output) {
				// Raw history sends the output as it came.
				if whole == 0 {
					whole = tok.Count(shown)
				}
				cut += tok.Count(c.Result.Output) - whole
			}
		}
		fence := fenceFor(out)
		fmt.Fprintf(&md, "Result %s:\n%s\n%s\n%s\n", status, fence, strings.TrimRight(out, "\n"), fence)
		asst.ToolCalls = append(asst.ToolCalls, MsgCall{ID: id, Type: "function", Function: MsgFunction{Name: c.Name, Arguments: args}})
		content := out
		if status != journal.StatusSuccess {
			content = status + ": " + out
		}
		results = append(results, Message{Role: "tool", ToolCallID: id, Content: StrPtr(content)})
	}
	msgs = append(msgs, asst)
	msgs = append(msgs, results...)
	r := L0{Markdown: md.String(), Messages: msgs}
	r.MarkdownTokens = tok.Count(r.Markdown)
	r.MessagesTokens = messagesBound(r.MarkdownTokens, msgs)
	r.RawTokens = r.MarkdownTokens + max(0, cut)
	return r
}

// reduceOutput keeps the head and tail of an output over max tokens, cut at
// line boundaries (within a single long line, such as compacted JSON, at
// a character boundary), with a note saying how much was left out and how
// to see it. Sizes are estimated from the output's bytes per token, then the result
// is what gets counted, so the estimate never leaks into a budget. whole is
// the output's own token count when it was cut, else 0.
func reduceOutput(tok scoring.Tokenizer, out string, limit, iter int) (reduced string, whole int) {
	// Every BPE token covers at least one byte: an output no longer in
	// bytes than the limit cannot exceed it in tokens, and need not be
	// counted.
	if len(out) <= limit {
		return out, 0
	}
	total := tok.Count(out)
	if total <= limit {
		return out, 0
	}
	bytesPerTok := float64(len(out)) / float64(total)
	keep := int(float64(limit/2) * bytesPerTok)
	end := min(keep, len(out))
	for end > 0 && end < len(out) && !utf8.RuneStart(out[end]) {
		end--
	}
	head := cutAtLine(out[:end], false)
	start := max(len(out)-keep, len(head))
	for start < len(out) && !utf8.RuneStart(out[start]) {
		start++
	}
	tail := cutAtLine(out[start:], true)
	return fmt.Sprintf("%s%s%d tokens; delta memory show --iteration %d]\n%s", head, truncatedNote, total, iter, tail), total
}

// truncatedNote starts the line reduceOutput puts where it cut an output.
const truncatedNote = "\n[output truncated: "

// Truncated reports whether a rendering shows a tool output cut to its
// head and tail (RenderL0's bound).
func Truncated(md string) bool { return strings.Contains(md, truncatedNote) }

// cutAtLine trims s to whole lines: the leading part for a head, the
// trailing part for a tail. A single long line is kept as it is.
func cutAtLine(s string, tail bool) string {
	if tail {
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			return s[i+1:]
		}
		return s
	}
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	return s
}

// fenceFor returns a code fence longer than any backtick run in s, so that
// the output cannot close it early (CommonMark fenced code blocks).
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// CompactOutput returns a tool output that is one JSON document without
// its insignificant whitespace (spaces after colons and commas, line
// breaks, indentation), and any other output as it is. APIs answer in
// JSON: compacted, a one-line airline reservation costs a fifth fewer
// tokens and an indented answer about two fifths fewer, every key and
// value kept, so a window holds more of it before an output is cut. The
// journal keeps the output as it came (delta memory show --iteration N).
func CompactOutput(out string) string {
	t := strings.TrimSpace(out)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return out
	}
	if c, ok := compacted([]byte(t)); ok && len(c) < len(out) {
		return c
	}
	return out
}

// compactJSON returns raw JSON without insignificant whitespace; invalid
// JSON is returned as it is.
func compactJSON(raw []byte) string {
	if c, ok := compacted(raw); ok {
		return c
	}
	return string(raw)
}

// compacted returns raw JSON without insignificant whitespace, and false
// when raw is not one JSON document.
func compacted(raw []byte) (string, bool) {
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, raw); err != nil {
		return "", false
	}
	return b.String(), true
}
