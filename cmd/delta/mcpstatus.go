package main

import (
	"context"
	"fmt"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

// mcpStatus is what memory_status and memory://runs/{id}/status give: the
// figures `delta memory show --json` has, summarized for a model (block
// ids and titles, not their content).
type mcpStatus struct {
	Run    runJSON        `json:"run"`
	Counts journal.Counts `json:"counts"`
	Blocks struct {
		Count   int               `json:"count"`
		ByLevel map[string]int    `json:"by_level"`
		Shown   []mcpBlockSummary `json:"shown"`
	} `json:"blocks"`
	Window struct {
		Tokens     int            `json:"tokens"`
		Budget     int            `json:"budget"`
		Tokenizer  string         `json:"tokenizer"`
		Partitions map[string]int `json:"partitions"`
	} `json:"window"`
	RawTokens int        `json:"raw_tokens"`
	Folds     countsJSON `json:"folds"`
	Recalls   struct {
		countsJSON
		Active int `json:"active"`
	} `json:"recalls"`
	Bookmarks int `json:"bookmarks"`
	LLM       struct {
		// Awaiting are the shown blocks whose LLM summary is still to
		// come; they show their extractive one until then.
		Awaiting []string `json:"awaiting"`
	} `json:"llm"`
}

// mcpBlockSummary is a shown block as memory_status lists it: enough to
// pick one to unfold.
type mcpBlockSummary struct {
	ID         string `json:"id"`
	Level      int    `json:"level"`
	Iterations [2]int `json:"iterations"`
	Title      string `json:"title"`
	Tokens     int    `json:"tokens"`
}

// statusOf gathers the run's status, building its window to measure it.
func statusOf(ctx context.Context, eng *memory.Engine, run journal.Run) (*mcpStatus, error) {
	st := &mcpStatus{Run: toRunJSON(run)}
	var err error
	if st.Counts, err = eng.Journal.Counts(ctx, run.ID); err != nil {
		return nil, err
	}
	blocks, err := eng.Fold.VisibleBlocks(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	st.Blocks.Count, st.Blocks.ByLevel, st.Blocks.Shown = len(blocks), map[string]int{}, []mcpBlockSummary{}
	for _, b := range blocks {
		st.Blocks.ByLevel[fmt.Sprintf("L%d", b.Level)]++
		st.Blocks.Shown = append(st.Blocks.Shown, mcpBlockSummary{ID: b.ID, Level: b.Level, Iterations: [2]int{b.First, b.Last}, Title: b.Title, Tokens: b.Tokens})
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		return nil, err
	}
	st.Window.Tokens, st.Window.Budget, st.Window.Tokenizer, st.Window.Partitions = cx.Tokens, cx.Budget, cx.Tokenizer, map[string]int{}
	for _, p := range cx.Partitions {
		st.Window.Partitions[p.Name] = p.Tokens
	}
	totals, err := eng.Fold.Totals(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	st.RawTokens, st.Folds = totals.RawTokens, toCountsJSON(totals.Folds)
	history, err := eng.Recall.History(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	by := map[string]int{}
	for _, r := range history {
		by[r.Reason]++
	}
	st.Recalls.countsJSON = toCountsJSON(by)
	active, err := eng.Recall.Active(ctx, run.ID, run.Iterations)
	if err != nil {
		return nil, err
	}
	st.Recalls.Active = len(active)
	marks, err := eng.Fold.Bookmarks(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	st.Bookmarks = len(marks)
	var g glance
	if err := llmState(ctx, eng, run.ID, &g); err != nil {
		return nil, err
	}
	st.LLM.Awaiting = nonNil(g.awaiting)
	return st, nil
}
