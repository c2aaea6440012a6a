package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/simulate"
)

// llmConfig reads the summarizer flags (each beating its environment
// variable) and OPENAI_BASE_URL / OPENAI_API_KEY. What is unset is left to
// the config file, then to the defaults (memory.ResolveLLM).
func llmConfig(c *cli.Context, e env) (memory.LLMConfig, error) {
	lc := memory.LLMConfig{
		Summarizer: global(c, e, "summarizer"),
		Model:      global(c, e, "model"),
		BaseURL:    e.getenv("OPENAI_BASE_URL"),
		APIKey:     e.getenv("OPENAI_API_KEY"),
	}
	if s := globalSetting(c, e, "summarizer"); s.value != "" &&
		!slices.Contains([]string{memory.SummarizerAuto, memory.SummarizerExtractive, memory.SummarizerLLM}, s.value) {
		return lc, s.invalid("auto, extractive, llm", "extractive")
	}
	if v := globalSetting(c, e, "verify"); v.value != "" {
		b, err := strconv.ParseBool(v.value)
		if err != nil {
			return lc, v.invalid("true or false", "true")
		}
		lc.Verify = &b
	}
	if v := globalSetting(c, e, "llm-timeout"); v.value != "" {
		d, err := time.ParseDuration(v.value)
		if err != nil || d <= 0 {
			return lc, v.invalid("a duration such as 30s", "30s")
		}
		lc.Timeout = d
	}
	if v := globalSetting(c, e, "llm-concurrency"); v.value != "" {
		n, err := v.atLeast(1, "summaries", "4")
		if err != nil {
			return lc, err
		}
		lc.Concurrency = n
	}
	return lc, nil
}

// warnLLM prints, once per command, what the LLM summarizer failed to do:
// the blocks are there (made by the extractive summarizer), so the command
// still succeeds. A refused API key is named as such.
func warnLLM(e env, eng *memory.Engine) {
	if eng.LLM == nil {
		return
	}
	st := eng.LLM.Stats()
	held := ""
	if n := eng.HeldBack(); n > 0 {
		held = fmt.Sprintf("; the circuit breaker then held back the calls for %d more (after %d failures in a row the endpoint is left alone for a while)", n, st.Usage.Failures)
	}
	if st.Usage.Failures == 0 && held == "" {
		return
	}
	if st.Refused != nil {
		fmt.Fprintf(e.stderr, "Warning: %s refused the API key (%v); %s blocks were summarized extractively instead, nothing was lost\n",
			eng.LLMSettings.BaseURLOrDefault(), st.Refused, simulate.Thousands(st.Usage.Failures))
		fmt.Fprintf(e.stderr, "Try: check OPENAI_API_KEY (and OPENAI_BASE_URL), or pass --summarizer extractive\n")
		return
	}
	fmt.Fprintf(e.stderr, "Warning: the LLM summarizer failed on %s of %s summaries; those blocks were summarized extractively, nothing was lost: %s%s\n",
		simulate.Thousands(st.Usage.Failures), simulate.Thousands(st.Summaries), strings.Join(st.Reasons, "; "), held)
}
