package main

import (
	"fmt"
	"io"

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

// printLLM adds the run's LLM totals to the run summary, if a model was
// ever asked.
func printLLM(w io.Writer, u fold.LLMUsage) {
	if u.IsZero() {
		return
	}
	fmt.Fprintf(w, "llm         %d calls, %d prompt + %d completion tokens; %d blocks fell back to extractive; %d summaries amended by the self-check\n",
		u.Calls, u.PromptTokens, u.CompletionTokens, u.Failures, u.Amended)
}
