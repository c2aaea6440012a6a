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
}

// Summarizer makes the text of a block. Implementations must be safe for
// concurrent use. A Summarizer that cannot answer returns an error; the
// caller then falls back to Extractive, so a fold is never lost.
type Summarizer interface {
	Summarize(ctx context.Context, req *Request) (Summary, error)
}
