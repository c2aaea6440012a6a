package fold

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/scoring"
)

// DefaultLLMModel is the model asked when none is configured: small and
// cheap, since a summary needs no more.
const DefaultLLMModel = "gpt-4o-mini"

// llmExtraTerms is how many keywords, and entities, a model may add to the
// extractive ones.
const llmExtraTerms = 8

// LLMSummarizer writes L2–L4 blocks with a model behind an OpenAI-compatible
// chat-completions endpoint. L1 blocks stay rule-based (Extractive): they
// are one line per iteration by design.
//
// Its answers are merged with the extractive summary of the same request:
// keywords and entities are the union of both, and errors and state changes
// are the rules' own, so recall never gets worse because a model left
// something out. With Verify, a second call asks what the summary misses,
// and the summary is amended once when it names facts.
//
// Any failure (a timeout, an HTTP error, rate limiting past the retries,
// invalid JSON, a missing field, an oversized answer) is returned as an
// error, and the Folder falls back to Extractive for that block. Once the
// endpoint refuses the API key, it is not called again: every later request
// fails at once with the same error.
type LLMSummarizer struct {
	Client *llm.Client
	// Model is the model to ask ("": DefaultLLMModel).
	Model string
	// Verify turns on the self-check.
	Verify    bool
	Tokenizer scoring.Tokenizer
	// InputTokens bounds the iterations or blocks a request shows
	// (0: DefaultLLMInputTokens).
	InputTokens int
	// ToolOutputTokens is the size from which a tool output shows only its
	// head and tail in a request (0: DefaultLLMToolOutputTokens).
	ToolOutputTokens int

	// refused is the first auth failure; once set, no more calls are made.
	refused atomic.Pointer[llm.Error]
	mu      sync.Mutex
	stats   LLMStats
}

var _ Summarizer = (*LLMSummarizer)(nil)

// LLMStats is what an LLMSummarizer did since it was made, for the caller
// to report once (the CLI prints one warning per command, not per block).
type LLMStats struct {
	// Summaries counts the L2–L4 summaries asked of it.
	Summaries int
	// Usage sums calls and tokens; Usage.Failures counts summaries that
	// failed (the Folder made them with Extractive), Usage.Amended the
	// summaries a self-check amended.
	Usage LLMUsage
	// Reasons lists the distinct failure reasons, first ones first (at most
	// five).
	Reasons []string
	// Refused is the endpoint's refusal of the API key, if it happened.
	Refused error
}

// Name is what the summarizer records on its blocks: "llm:<model>".
func (s *LLMSummarizer) Name() string { return "llm:" + s.model() }

func (s *LLMSummarizer) model() string {
	if s.Model == "" {
		return DefaultLLMModel
	}
	return s.Model
}

// Stats returns a copy of what the summarizer did so far.
func (s *LLMSummarizer) Stats() LLMStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Reasons = append([]string(nil), st.Reasons...)
	return st
}

// Summarize writes the block for req. L1 requests go to Extractive. On
// failure the returned Summary still carries the calls' cost in Usage.
func (s *LLMSummarizer) Summarize(ctx context.Context, req *Request) (Summary, error) {
	ex, err := Extractive{}.Summarize(ctx, req)
	if err != nil || req.Level == L1 {
		return ex, err
	}
	var use LLMUsage
	sum, err := s.summarize(ctx, req, ex, &use)
	sum.Usage = use
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	s.record(use, err)
	return sum, err
}

func (s *LLMSummarizer) summarize(ctx context.Context, req *Request, ex Summary, use *LLMUsage) (Summary, error) {
	if r := s.refused.Load(); r != nil {
		return Summary{}, r
	}
	body := promptInput(s.Tokenizer, req, s.inputTokens(), s.toolOutputTokens())
	text, err := s.ask(ctx, summaryMessages(req, ex, body, s.Tokenizer), use)
	if err != nil {
		return Summary{}, err
	}
	ans, err := parseAnswer(s.Tokenizer, text, req.Level)
	if err != nil {
		return Summary{}, err
	}
	check := ""
	if s.Verify {
		ans, check = s.selfCheck(ctx, req, ex, body, ans, use)
		if ctx.Err() != nil {
			return Summary{}, ctx.Err()
		}
	}
	sum := s.compose(req, ex, ans)
	sum.SelfCheck = check
	return sum, nil
}

// ask makes one call and returns the answer's text, counting its cost.
func (s *LLMSummarizer) ask(ctx context.Context, msgs []llm.Message, use *LLMUsage) (string, error) {
	rep, err := s.Client.Complete(ctx, llm.Request{Model: s.model(), Messages: msgs, MaxTokens: llmAnswerTokens, JSON: true})
	use.Calls += rep.Attempts
	use.PromptTokens += rep.Usage.PromptTokens
	use.CompletionTokens += rep.Usage.CompletionTokens
	var le *llm.Error
	if errors.As(err, &le) && le.Kind == llm.KindAuth {
		s.refused.CompareAndSwap(nil, le)
	}
	if err != nil {
		return "", err
	}
	switch {
	case rep.FinishReason == "length":
		return "", fmt.Errorf("oversized answer: cut off at the %d-token limit", llmAnswerTokens)
	case len(rep.Content) > llmAnswerBytes:
		return "", fmt.Errorf("oversized answer: %d bytes (limit %d)", len(rep.Content), llmAnswerBytes)
	}
	return rep.Content, nil
}

// selfCheck asks what the summary misses and amends it once when the model
// names facts: with the model's own rewrite when it gives a valid one, else
// by adding the facts to the content. A failed check leaves the summary as
// it was and says why.
func (s *LLMSummarizer) selfCheck(ctx context.Context, req *Request, ex Summary, body string, ans llmAnswer, use *LLMUsage) (llmAnswer, string) {
	text, err := s.ask(ctx, checkMessages(req, ex, body, ans), use)
	if err != nil {
		return ans, "failed: " + err.Error()
	}
	missing, amended, err := parseCheck(s.Tokenizer, text, req.Level)
	switch {
	case err != nil:
		return ans, "failed: " + err.Error()
	case len(missing) == 0:
		return ans, SelfCheckComplete
	}
	use.Amended++
	if amended != nil {
		// The rewrite must not lose what the first answer found.
		amended.Keywords = mergeTerms(amended.Keywords, ans.Keywords, llmListItems)
		amended.Entities = mergeTerms(amended.Entities, ans.Entities, llmListItems)
		return *amended, SelfCheckAmended
	}
	ans.Content = strings.TrimSpace(ans.Content) + " Also: " + strings.Join(missing, "; ")
	return ans, SelfCheckAmended
}

// compose merges the model's answer into the extractive summary.
func (s *LLMSummarizer) compose(req *Request, ex Summary, ans llmAnswer) Summary {
	sum := ex
	sum.Summarizer = s.Name()
	if req.Title == "" { // a milestone's own title names its chapter
		sum.Title = ans.Title
	}
	sum.Keywords = mergeTerms(ex.Keywords, lowerAll(ans.Keywords), len(ex.Keywords)+llmExtraTerms)
	sum.Entities = mergeTerms(ex.Entities, ans.Entities, len(ex.Entities)+llmExtraTerms)
	if len(ans.Outcomes) > 0 {
		sum.Outcome = strings.Join(ans.Outcomes, "; ")
	}
	sum.Content = renderLLM(req, sum, ans)
	return sum
}

// renderLLM lays a model-written block out like an extractive one: header,
// the model's prose, then the lists the window reader scans.
func renderLLM(req *Request, sum Summary, ans llmAnswer) string {
	r := rangeText(req.First, req.Last)
	changes := ans.StateChanges
	if len(changes) == 0 {
		changes = sum.StateChanges
	}
	if req.Level == L4 {
		return fmt.Sprintf("[L4 · iterations %s] %s — %s [recall: iterations %s]", r, sum.Title, oneLine(ans.Content), r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[L%d · iterations %s] %s\n%s\n", req.Level, r, sum.Title, strings.TrimSpace(ans.Content))
	nErr, nChg := 2, 4
	if req.Level == L2 {
		nErr, nChg = summaryErrors, summaryChanges
		writeList(&b, "Outcomes", ans.Outcomes, 4)
		if len(req.Pinned) > 0 {
			// Protected iterations keep their line, as in an extractive block.
			b.WriteString("Key actions:\n")
			for _, n := range req.Pinned {
				b.WriteString("- " + n.L1 + "\n")
			}
		}
	}
	writeList(&b, "Errors", sum.Errors, nErr)
	writeList(&b, "Changed", changes, nChg)
	writeList(&b, "Keywords", sum.Keywords, summaryKeywords)
	fmt.Fprintf(&b, "[recall: iterations %s]", r)
	return b.String()
}

// record adds one summary's outcome to the stats.
func (s *LLMSummarizer) record(use LLMUsage, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Summaries++
	s.stats.Usage = s.stats.Usage.Add(use)
	if err == nil {
		return
	}
	s.stats.Usage.Failures++
	if r := s.refused.Load(); r != nil {
		s.stats.Refused = r
	}
	reason := err.Error()
	if len(s.stats.Reasons) < 5 && !slices.Contains(s.stats.Reasons, reason) {
		s.stats.Reasons = append(s.stats.Reasons, reason)
	}
}

func (s *LLMSummarizer) inputTokens() int {
	if s.InputTokens > 0 {
		return s.InputTokens
	}
	return DefaultLLMInputTokens
}

func (s *LLMSummarizer) toolOutputTokens() int {
	if s.ToolOutputTokens > 0 {
		return s.ToolOutputTokens
	}
	return DefaultLLMToolOutputTokens
}

// mergeTerms returns base, then the items of extra not in it (compared
// without case), up to n in all. base is never cut.
func mergeTerms(base, extra []string, n int) []string {
	out := append([]string{}, base...)
	seen := map[string]bool{}
	for _, b := range base {
		seen[strings.ToLower(b)] = true
	}
	for _, e := range extra {
		if len(out) >= n {
			break
		}
		if k := strings.ToLower(e); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func lowerAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = strings.ToLower(s)
	}
	return out
}
