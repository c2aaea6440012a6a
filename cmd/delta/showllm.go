package main

import (
	"github.com/delta-memory/delta-memory/fold"
)

// llmJSON is the run's LLM totals in `show --json`, under "llm".
type llmJSON struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Failures         int `json:"failures"`
}

func toLLMJSON(u fold.LLMUsage) llmJSON {
	return llmJSON{Calls: u.Calls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Failures: u.Failures}
}

// llmTokensJSON is a block's "llm_tokens" in --json output.
type llmTokensJSON struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}
