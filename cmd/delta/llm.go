package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/internal/engine"
)

// llmConfig reads the summarizer flags (each beating its environment
// variable) and OPENAI_BASE_URL / OPENAI_API_KEY. What is unset is left to
// the config file, then to the defaults (engine.ResolveLLM).
func llmConfig(c *cli.Context, e env) (engine.LLMConfig, error) {
	lc := engine.LLMConfig{
		Summarizer: global(c, e, "summarizer"),
		Model:      global(c, e, "model"),
		BaseURL:    e.getenv("OPENAI_BASE_URL"),
		APIKey:     e.getenv("OPENAI_API_KEY"),
	}
	if s := lc.Summarizer; s != "" {
		if err := oneOf(c.Command.HelpName, "summarizer", s, engine.SummarizerAuto, engine.SummarizerExtractive, engine.SummarizerLLM); err != nil {
			return lc, err
		}
	}
	if v := global(c, e, "verify"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return lc, usagef("--verify, or DELTA_MEMORY_VERIFY=1 / =0", "--verify %q: want true or false", v)
		}
		lc.Verify = &b
	}
	if v := global(c, e, "llm-timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return lc, usagef("pass a duration, e.g. --llm-timeout 30s", "--llm-timeout %q: want a duration such as 30s", v)
		}
		lc.Timeout = d
	}
	if v := global(c, e, "llm-concurrency"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return lc, usagef("pass a whole number, e.g. --llm-concurrency 4", "--llm-concurrency %q: want a number >= 1", v)
		}
		lc.Concurrency = n
	}
	return lc, nil
}

// warnLLM prints, once per command, what the LLM summarizer failed to do:
// the blocks are there (made by the extractive summarizer), so the command
// still succeeds. A refused API key is named as such.
func warnLLM(e env, eng *engine.Engine) {
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
		fmt.Fprintf(e.stderr, "Warning: %s refused the API key (%v); %d blocks were summarized extractively instead, nothing was lost\n",
			eng.LLMSettings.BaseURLOrDefault(), st.Refused, st.Usage.Failures)
		fmt.Fprintf(e.stderr, "Try: check OPENAI_API_KEY (and OPENAI_BASE_URL), or pass --summarizer extractive\n")
		return
	}
	fmt.Fprintf(e.stderr, "Warning: the LLM summarizer failed on %d of %d summaries; those blocks were summarized extractively, nothing was lost: %s%s\n",
		st.Usage.Failures, st.Summaries, strings.Join(st.Reasons, "; "), held)
}
