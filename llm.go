package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/scoring"
)

// Summarizer choices.
const (
	SummarizerAuto       = "auto"
	SummarizerExtractive = "extractive"
	SummarizerLLM        = "llm"
)

// DefaultLLMConcurrency is how many summaries are asked of the model at once.
const DefaultLLMConcurrency = 4

// ErrLLMSettings is wrapped by errors in the summarizer settings.
var ErrLLMSettings = errors.New("bad summarizer settings")

// LLMConfig is the summarizer part of Config. Zero values defer to the
// config file's llm section, then to the defaults; the CLI fills it from
// flags, else environment variables, so that the order of precedence is
// flag, environment, file, default.
type LLMConfig struct {
	// Summarizer is auto, extractive or llm. auto uses the model when an
	// API key or a base URL is set, else the extractive summarizer.
	Summarizer string
	// Model to ask (default fold.DefaultLLMModel).
	Model string
	// BaseURL and APIKey locate the endpoint (OPENAI_BASE_URL,
	// OPENAI_API_KEY). The key is never read from the config file.
	BaseURL, APIKey string
	// Verify turns the self-check on or off (nil: the file's, else off).
	Verify *bool
	// Timeout bounds each call (default llm.DefaultTimeout).
	Timeout time.Duration
	// Concurrency is how many summaries run at once (default
	// DefaultLLMConcurrency).
	Concurrency int
	// Sleep, if set, replaces the wait between retries of a rate-limited
	// call (tests).
	Sleep func(ctx context.Context, d time.Duration) error `json:"-"`
}

// LLMSettings are the summarizer settings in force, after precedence.
type LLMSettings struct {
	// Summarizer is extractive or llm, auto resolved.
	Summarizer  string
	Model       string
	BaseURL     string
	APIKey      string
	Verify      bool
	Timeout     time.Duration
	Concurrency int
	InputTokens int
}

// BaseURLOrDefault is the endpoint the summarizer calls.
func (s LLMSettings) BaseURLOrDefault() string {
	if s.BaseURL == "" {
		return "https://api.openai.com/v1"
	}
	return s.BaseURL
}

// fileLLM is the config file's llm section.
type fileLLM struct {
	Summarizer     string `yaml:"summarizer" json:"summarizer"`
	Model          string `yaml:"model" json:"model"`
	BaseURL        string `yaml:"base_url" json:"base_url"`
	Timeout        string `yaml:"timeout" json:"timeout"`
	MaxConcurrency int    `yaml:"max_concurrency" json:"max_concurrency"`
	Verify         *bool  `yaml:"verify" json:"verify"`
	InputTokens    int    `yaml:"input_tokens" json:"input_tokens"`
}

// ResolveLLM applies the precedence (c, then the file, then the defaults)
// and checks the result. It fails, wrapping ErrLLMSettings, on an unknown
// summarizer, a bad timeout, or llm chosen with neither a key nor a URL.
func ResolveLLM(c LLMConfig, fc FileConfig) (LLMSettings, error) {
	f := fileLLM{}
	if fc.LLM != nil {
		f = *fc.LLM
	}
	s := LLMSettings{
		Summarizer:  first(c.Summarizer, f.Summarizer, SummarizerAuto),
		Model:       first(c.Model, f.Model, fold.DefaultLLMModel),
		BaseURL:     first(c.BaseURL, f.BaseURL, ""),
		APIKey:      c.APIKey,
		Timeout:     c.Timeout,
		Concurrency: c.Concurrency,
		InputTokens: f.InputTokens,
	}
	switch {
	case c.Verify != nil:
		s.Verify = *c.Verify
	case f.Verify != nil:
		s.Verify = *f.Verify
	}
	if s.Timeout == 0 && f.Timeout != "" {
		d, err := time.ParseDuration(f.Timeout)
		if err != nil || d <= 0 {
			return s, fc.blame(fmt.Errorf("%w: llm.timeout %q: want a duration such as 30s", ErrLLMSettings, f.Timeout))
		}
		s.Timeout = d
	}
	if s.Timeout == 0 {
		s.Timeout = llm.DefaultTimeout
	}
	if s.Concurrency == 0 {
		s.Concurrency = f.MaxConcurrency
	}
	if s.Concurrency <= 0 {
		s.Concurrency = DefaultLLMConcurrency
	}
	switch s.Summarizer {
	case SummarizerAuto:
		s.Summarizer = SummarizerExtractive
		if s.APIKey != "" || s.BaseURL != "" {
			s.Summarizer = SummarizerLLM
		}
	case SummarizerLLM:
		if s.APIKey == "" && s.BaseURL == "" {
			return s, fmt.Errorf("%w: the llm summarizer needs OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (a local or other endpoint)", ErrLLMSettings)
		}
	case SummarizerExtractive:
	default:
		return s, fmt.Errorf("%w: summarizer %q: want auto, extractive or llm", ErrLLMSettings, s.Summarizer)
	}
	return s, nil
}

// newLLM builds the LLM summarizer for settings s.
func newLLM(s LLMSettings, c LLMConfig, tok scoring.Tokenizer) *fold.LLMSummarizer {
	cfg := llm.Config{BaseURL: s.BaseURL, APIKey: s.APIKey, Timeout: s.Timeout, Sleep: c.Sleep}
	return &fold.LLMSummarizer{Client: llm.New(cfg), Model: s.Model, Verify: s.Verify, Tokenizer: tok, InputTokens: s.InputTokens}
}

func first(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// LLMFileSection is the llm section of a settings file that gives s (all
// but the API key, which is never written to a file).
func LLMFileSection(s LLMSettings) *fileLLM {
	verify := s.Verify
	return &fileLLM{Summarizer: s.Summarizer, Model: s.Model, BaseURL: s.BaseURL, Timeout: s.Timeout.String(),
		MaxConcurrency: s.Concurrency, Verify: &verify, InputTokens: s.InputTokens}
}
