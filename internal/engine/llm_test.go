package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
)

func TestResolveLLMPrecedence(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	file := func(t *testing.T, text string) engine.FileConfig {
		p := filepath.Join(t.TempDir(), "memory.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fc, err := engine.LoadFileConfig(p, true)
		if err != nil {
			t.Fatal(err)
		}
		return fc
	}
	full := "llm:\n  summarizer: llm\n  model: file-model\n  base_url: http://file:1/v1\n  timeout: 5s\n  max_concurrency: 2\n  verify: true\n"
	cases := []struct {
		name string
		cfg  engine.LLMConfig // what flags, else env, gave
		file string
		want engine.LLMSettings
	}{
		{"defaults", engine.LLMConfig{}, "",
			engine.LLMSettings{Summarizer: "extractive", Model: "gpt-4o-mini", Timeout: 60 * time.Second, Concurrency: 4}},
		{"auto with a key", engine.LLMConfig{APIKey: "k"}, "",
			engine.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", APIKey: "k", Timeout: 60 * time.Second, Concurrency: 4}},
		{"auto with a base URL", engine.LLMConfig{BaseURL: "http://env:1/v1"}, "",
			engine.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", BaseURL: "http://env:1/v1", Timeout: 60 * time.Second, Concurrency: 4}},
		{"file over defaults", engine.LLMConfig{}, full,
			engine.LLMSettings{Summarizer: "llm", Model: "file-model", BaseURL: "http://file:1/v1", Verify: true, Timeout: 5 * time.Second, Concurrency: 2}},
		{"flag or env over file", engine.LLMConfig{Summarizer: "extractive", Model: "env-model", BaseURL: "http://env:1/v1", Verify: &no, Timeout: time.Second, Concurrency: 9}, full,
			engine.LLMSettings{Summarizer: "extractive", Model: "env-model", BaseURL: "http://env:1/v1", Timeout: time.Second, Concurrency: 9}},
		{"file's base URL makes auto use the LLM", engine.LLMConfig{Verify: &yes}, "llm:\n  base_url: http://file:1/v1\n",
			engine.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", BaseURL: "http://file:1/v1", Verify: true, Timeout: 60 * time.Second, Concurrency: 4}},
		{"file says extractive over auto", engine.LLMConfig{APIKey: "k"}, "llm:\n  summarizer: extractive\n",
			engine.LLMSettings{Summarizer: "extractive", Model: "gpt-4o-mini", APIKey: "k", Timeout: 60 * time.Second, Concurrency: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fc engine.FileConfig
			if tc.file != "" {
				fc = file(t, tc.file)
			}
			got, err := engine.ResolveLLM(tc.cfg, fc)
			if err != nil {
				t.Fatal(err)
			}
			got.InputTokens = 0
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []struct {
		cfg  engine.LLMConfig
		file string
	}{
		{engine.LLMConfig{Summarizer: "llm"}, ""},
		{engine.LLMConfig{Summarizer: "gpt"}, ""},
		{engine.LLMConfig{}, "llm:\n  timeout: soon\n"},
	} {
		var fc engine.FileConfig
		if bad.file != "" {
			fc = file(t, bad.file)
		}
		if _, err := engine.ResolveLLM(bad.cfg, fc); !errors.Is(err, engine.ErrLLMSettings) {
			t.Errorf("%+v %q: error %v, want ErrLLMSettings", bad.cfg, bad.file, err)
		}
	}
}
