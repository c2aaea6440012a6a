package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
)

func TestResolveLLMPrecedence(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	file := func(t *testing.T, text string) memory.FileConfig {
		p := filepath.Join(t.TempDir(), "memory.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fc, err := memory.LoadFileConfig(p, true)
		if err != nil {
			t.Fatal(err)
		}
		return fc
	}
	full := "llm:\n  summarizer: llm\n  model: file-model\n  base_url: http://file:1/v1\n  timeout: 5s\n  max_concurrency: 2\n  verify: true\n"
	cases := []struct {
		name string
		cfg  memory.LLMConfig // what flags, else env, gave
		file string
		want memory.LLMSettings
	}{
		{"defaults", memory.LLMConfig{}, "",
			memory.LLMSettings{Summarizer: "extractive", Model: "gpt-4o-mini", Timeout: 60 * time.Second, Concurrency: 4}},
		{"auto with a key", memory.LLMConfig{APIKey: "k"}, "",
			memory.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", APIKey: "k", Timeout: 60 * time.Second, Concurrency: 4}},
		{"auto with a base URL", memory.LLMConfig{BaseURL: "http://env:1/v1"}, "",
			memory.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", BaseURL: "http://env:1/v1", Timeout: 60 * time.Second, Concurrency: 4}},
		{"file over defaults", memory.LLMConfig{}, full,
			memory.LLMSettings{Summarizer: "llm", Model: "file-model", BaseURL: "http://file:1/v1", Verify: true, Timeout: 5 * time.Second, Concurrency: 2}},
		{"flag or env over file", memory.LLMConfig{Summarizer: "extractive", Model: "env-model", BaseURL: "http://env:1/v1", Verify: &no, Timeout: time.Second, Concurrency: 9}, full,
			memory.LLMSettings{Summarizer: "extractive", Model: "env-model", BaseURL: "http://env:1/v1", Timeout: time.Second, Concurrency: 9}},
		{"file's base URL makes auto use the LLM", memory.LLMConfig{Verify: &yes}, "llm:\n  base_url: http://file:1/v1\n",
			memory.LLMSettings{Summarizer: "llm", Model: "gpt-4o-mini", BaseURL: "http://file:1/v1", Verify: true, Timeout: 60 * time.Second, Concurrency: 4}},
		{"file says extractive over auto", memory.LLMConfig{APIKey: "k"}, "llm:\n  summarizer: extractive\n",
			memory.LLMSettings{Summarizer: "extractive", Model: "gpt-4o-mini", APIKey: "k", Timeout: 60 * time.Second, Concurrency: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fc memory.FileConfig
			if tc.file != "" {
				fc = file(t, tc.file)
			}
			got, err := memory.ResolveLLM(tc.cfg, fc)
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
		cfg  memory.LLMConfig
		file string
	}{
		{memory.LLMConfig{Summarizer: "llm"}, ""},
		{memory.LLMConfig{Summarizer: "gpt"}, ""},
		{memory.LLMConfig{}, "llm:\n  timeout: soon\n"},
	} {
		var fc memory.FileConfig
		if bad.file != "" {
			fc = file(t, bad.file)
		}
		if _, err := memory.ResolveLLM(bad.cfg, fc); !errors.Is(err, memory.ErrLLMSettings) {
			t.Errorf("%+v %q: error %v, want ErrLLMSettings", bad.cfg, bad.file, err)
		}
	}
}
