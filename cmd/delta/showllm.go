package main

import (
	"context"
	"math"

	"github.com/delta-memory/delta-memory"
)

// llmJSON is the run's LLM totals in `show --json`, under "llm": what was
// spent, which visible blocks still await the model's summary, and the
// endpoint's circuit breaker (null without an LLM summarizer).
type llmJSON struct {
	Calls            int                   `json:"calls"`
	PromptTokens     int                   `json:"prompt_tokens"`
	CompletionTokens int                   `json:"completion_tokens"`
	Failures         int                   `json:"failures"`
	Awaiting         []string              `json:"awaiting"`
	Breaker          *memory.BreakerStatus `json:"breaker"`
}

func toLLMJSON(g glance) llmJSON {
	u := g.llm
	return llmJSON{Calls: u.Calls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Failures: u.Failures,
		Awaiting: nonNil(g.awaiting), Breaker: g.breaker}
}

// llmTokensJSON is a block's "llm_tokens" in --json output.
type llmTokensJSON struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// llmState reads which of the run's blocks await the model's summary,
// and the summarizer endpoint's circuit breaker.
func llmState(ctx context.Context, eng *memory.Engine, run string, g *glance) error {
	bs, err := eng.Fold.Awaiting(ctx, run)
	if err != nil {
		return err
	}
	for _, b := range bs {
		g.awaiting = append(g.awaiting, b.ID)
	}
	st, ok, err := eng.Breaker(ctx)
	if ok {
		g.breaker = &st
	}
	if err != nil {
		return err
	}
	l, ok, err := eng.LastSyncOf(ctx, run)
	if ok {
		g.lastSync = &l
	}
	return err
}

// lastSyncJSON is show --json's "last_sync": how the newest memory file
// began like the one before it, or null.
type lastSyncJSON struct {
	memory.LastSync
	PrefixKept   float64 `json:"prefix_kept"`
	CachedTokens int     `json:"cached_tokens_estimate"`
}

func toLastSyncJSON(l *memory.LastSync) *lastSyncJSON {
	if l == nil {
		return nil
	}
	return &lastSyncJSON{LastSync: *l, PrefixKept: math.Round(l.PrefixKept()*1000) / 1000, CachedTokens: l.CachedTokens()}
}
