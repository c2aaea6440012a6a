package fold

import (
	"context"

	"github.com/delta-memory/delta-memory/journal"
)

// Request is what a Summarizer folds into one block: iterations for an
// L1/L2 block, child blocks for an L3/L4 one.
type Request struct {
	Run   string
	Level int
	First int
	Last  int
	// Title is the name a milestone gave the range, if any.
	Title string
	// Task is the run's task, for a summarizer that writes for a reader
	// who needs the context.
	Task string
	// Iterations and Notes cover First..Last, in order (L1/L2).
	Iterations []*journal.Iteration
	Notes      []*Note
	// Children are the blocks merged (L3/L4), oldest first.
	Children []*Block
	// Pinned are the protected iterations to keep in detail, most
	// important first, already cut to the pinned cap.
	Pinned []*Note
	// Unpinned are the protected iterations the cap left out.
	Unpinned []*Note
	// DF reports in how many of the run's Docs iterations a term occurs,
	// for TF-IDF keywords.
	DF   func(term string) int
	Docs int
}

// Summary is a Summarizer's answer: the block's text and metadata.
type Summary struct {
	Title        string
	Content      string
	Outcome      string
	Keywords     []string
	Entities     []string
	StateChanges []string
	Errors       []string
	// Summarizer names what made the summary ("extractive", "llm:<model>").
	Summarizer string
	// Usage is what the summary cost in LLM calls. A Summarizer that fails
	// still reports, in the Summary it returns with its error, what its
	// failed calls cost.
	Usage LLMUsage
	// SelfCheck is the outcome of the LLM self-check: "" when none was
	// asked, SelfCheckComplete, SelfCheckAmended, or "failed: <reason>".
	SelfCheck string
	// Awaiting says the summary stands in for the configured summarizer's,
	// which Folder.Upgrade is to make (Folder.Defer).
	Awaiting bool
}

// Outcomes of the LLM self-check (Summary.SelfCheck, Block.SelfCheck).
const (
	SelfCheckComplete = "complete"
	SelfCheckAmended  = "amended"
)

// LLMUsage counts LLM calls and the tokens the endpoint reported for them.
// Failures and Amended count folds, for run totals.
type LLMUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Failures counts blocks made by Extractive because the model failed.
	Failures int `json:"failures"`
	// Amended counts summaries a self-check amended.
	Amended int `json:"amended"`
}

// Add returns the sum of two usages.
func (u LLMUsage) Add(v LLMUsage) LLMUsage {
	return LLMUsage{Calls: u.Calls + v.Calls, PromptTokens: u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens, Failures: u.Failures + v.Failures, Amended: u.Amended + v.Amended}
}

// IsZero reports whether nothing was spent or recorded.
func (u LLMUsage) IsZero() bool { return u == LLMUsage{} }

// Summarizer makes the text of a block. Implementations must be safe for
// concurrent use: the Folder summarizes independent ranges in parallel. A
// Summarizer that cannot answer returns an error; the caller then falls back
// to Extractive, so a fold is never lost.
type Summarizer interface {
	Summarize(ctx context.Context, req *Request) (Summary, error)
}
