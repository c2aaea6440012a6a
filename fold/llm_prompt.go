package fold

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/scoring"
)

// Bounds of what one summary request shows the model, so that a request
// never overflows a small model's context, however long the outputs.
const (
	// DefaultLLMInputTokens bounds the iterations or blocks of a request.
	DefaultLLMInputTokens = 6000
	// DefaultLLMToolOutputTokens is the size from which a tool output shows
	// only its head and tail in a request, as in L0 rendering.
	DefaultLLMToolOutputTokens = 300
	// llmTaskTokens bounds the run's task in a request.
	llmTaskTokens = 200
)

// llmSystem tells the model what its notes are for.
const llmSystem = `You keep the memory of a software agent that works for hours on one task. ` +
	`Your notes stand in for older parts of its journal, which the agent can no longer see, ` +
	`so it continues from them: keep what was done and why, what changed and what went wrong, ` +
	`naming files, commands, settings and errors exactly. Drop step-by-step detail. ` +
	`Reply with one JSON object and nothing else.`

// levelWork says what a request at each level asks for.
var levelWork = map[int]struct{ ask, content, input string }{
	L2: {"Write a summary block for iterations %s of the run.", "2 or 3 sentences: what was done and why, not how", "Iterations"},
	L3: {"Write a chapter index for iterations %s, from the summaries of its parts.", "2 or 3 sentences: the chapter's aim and what came of it", "Summaries"},
	L4: {"Write the entry of a phase spanning iterations %s, from its chapters.", "one sentence: what the phase achieved", "Chapters"},
}

// fieldSpec lists the JSON fields every answer has.
func fieldSpec(level int) string {
	return `Fields, all required:
- "title": 4 to 8 words naming the work
- "content": ` + levelWork[level].content + `
- "outcomes": list of short statements of what holds now
- "keywords": list of terms to search for to find this work again
- "entities": list of the files, paths, URLs, identifiers, hosts and error codes involved
- "state_changes": list of what was created, modified, deleted, installed or moved`
}

// summaryMessages is the request for a summary.
func summaryMessages(req *Request, ex Summary, body string, tok scoring.Tokenizer) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, levelWork[req.Level].ask+"\n", rangeText(req.First, req.Last))
	if req.Task != "" {
		fmt.Fprintf(&b, "The run's task: %s\n", oneLine(clipTokens(tok, req.Task, llmTaskTokens)))
	}
	b.WriteString(fieldSpec(req.Level))
	b.WriteString("\n")
	writeFacts(&b, ex)
	fmt.Fprintf(&b, "\n%s:\n%s", levelWork[req.Level].input, body)
	return []llm.Message{{Role: "system", Content: llmSystem}, {Role: "user", Content: b.String()}}
}

// checkMessages is the self-check's request: the same input, the summary,
// and the question of what it leaves out.
func checkMessages(req *Request, ex Summary, body string, ans llmAnswer) []llm.Message {
	summary, _ := json.Marshal(ans)
	var b strings.Builder
	fmt.Fprintf(&b, "Here is a summary of iterations %s of the run:\n%s\n\n", rangeText(req.First, req.Last), summary)
	b.WriteString(`Given this summary, what important facts of these iterations are missing? ` +
		`Important means the agent would need it later: a file or setting changed, a decision and its reason, ` +
		`an error and its cause, a result.` + "\n")
	b.WriteString(`Reply with {"missing": [...], "amended": {...}}. "missing" lists each missing fact in one short sentence, ` +
		`and is empty when nothing important is missing. "amended" is the summary rewritten once to include them, ` +
		`with the same fields and limits; leave it out when "missing" is empty.` + "\n")
	b.WriteString(fieldSpec(req.Level))
	b.WriteString("\n")
	writeFacts(&b, ex)
	fmt.Fprintf(&b, "\n%s:\n%s", levelWork[req.Level].input, body)
	return []llm.Message{{Role: "system", Content: llmSystem}, {Role: "user", Content: b.String()}}
}

// writeFacts adds what the rules found, so that the model's answer does not
// contradict it.
func writeFacts(b *strings.Builder, ex Summary) {
	if len(ex.Errors) == 0 && len(ex.StateChanges) == 0 {
		return
	}
	b.WriteString("Found by rules, to keep consistent with:\n")
	writeList(b, "Errors", ex.Errors, summaryErrors)
	writeList(b, "Changed", ex.StateChanges, summaryChanges)
}

// promptInput renders what a request shows, within budget tokens: the
// iterations for L2, the child blocks for L3 and L4.
func promptInput(tok scoring.Tokenizer, req *Request, budget, toolOutput int) string {
	if req.Level >= L3 {
		return childrenInput(tok, req.Children, budget)
	}
	return iterationsInput(tok, req, budget, toolOutput)
}

// iterationsInput renders each iteration as in L0, long tool outputs
// reduced to their head and tail. If they still do not fit, the largest
// show only their thought and L1 line, largest first; what then still does
// not fit is cut.
func iterationsInput(tok scoring.Tokenizer, req *Request, budget, toolOutput int) string {
	texts := make([]string, len(req.Iterations))
	sizes := make([]int, len(req.Iterations))
	total := 0
	for i, it := range req.Iterations {
		r := RenderL0(tok, it, toolOutput)
		texts[i], sizes[i] = r.Markdown, r.MarkdownTokens
		total += sizes[i]
	}
	if total > budget {
		l1 := map[int]string{}
		for _, n := range req.Notes {
			l1[n.Number] = n.L1
		}
		order := make([]int, len(texts))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return sizes[b] - sizes[a] })
		for _, i := range order {
			if total <= budget {
				break
			}
			it := req.Iterations[i]
			short := fmt.Sprintf("#### Iteration %d (%s)\nThought: %s\n%s\n", it.Number, it.Status, clipRunes(oneLine(it.Thought), 400), l1[it.Number])
			n := tok.Count(short)
			if n < sizes[i] {
				total += n - sizes[i]
				texts[i], sizes[i] = short, n
			}
		}
	}
	return clipTokens(tok, strings.Join(texts, "\n"), budget)
}

// childrenInput lists the child blocks, each cut to an equal share of the
// budget.
func childrenInput(tok scoring.Tokenizer, children []*Block, budget int) string {
	if len(children) == 0 {
		return ""
	}
	share := max(budget/len(children), 40)
	var b strings.Builder
	for _, c := range children {
		text := fmt.Sprintf("### %s (iterations %s): %s\n%s\n", c.ID, rangeText(c.First, c.Last), c.Title, c.Content)
		b.WriteString(clipTokens(tok, text, share))
		b.WriteString("\n")
	}
	return clipTokens(tok, b.String(), budget)
}

// clipTokens cuts s to at most n tokens, at a line end where it can, and
// says so.
func clipTokens(tok scoring.Tokenizer, s string, n int) string {
	if len(s) <= n {
		return s // a token covers at least one byte
	}
	total := tok.Count(s)
	if total <= n {
		return s
	}
	const note = "\n[… cut to fit]"
	keep := len(s) * n / total
	for keep > 0 {
		head := cutAtLine(s[:keep], false)
		if len(head) < keep/2 {
			head = s[:keep] // one long line: cut inside it
		}
		head = strings.ToValidUTF8(head, "")
		if out := head + note; tok.Count(out) <= n {
			return out
		}
		keep = keep * 9 / 10
	}
	return ""
}
