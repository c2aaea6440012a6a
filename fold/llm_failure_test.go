package fold_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
)

// TestLLMFailuresFallBack: every way a model can fail leaves an extractive
// block that says why, never a lost fold, and is counted.
func TestLLMFailuresFallBack(t *testing.T) {
	t.Parallel()
	answer := func(edit func(map[string]any)) llmtest.Handler {
		return func(n int, _ llmtest.Request) llmtest.Response {
			s := llmtest.Summary(n)
			edit(s)
			return llmtest.JSON(s, 40, 9)
		}
	}
	fixed := func(r llmtest.Response) llmtest.Handler {
		return func(int, llmtest.Request) llmtest.Response { return r }
	}
	cases := []struct {
		name   string
		h      llmtest.Handler
		reason string
		calls  int
		tokens int // prompt tokens the failed calls reported
	}{
		{"server error past the retries", fixed(llmtest.Error(500, "upstream exploded")), "HTTP 500: upstream exploded", 4, 0},
		{"unknown model", fixed(llmtest.Error(404, "model small-model does not exist")), "HTTP 404: model small-model does not exist", 1, 0},
		{"rate limited past the retries", fixed(llmtest.Error(429, "quota exceeded")), "rate limited (HTTP 429) after 4 attempts: quota exceeded", 4, 0},
		{"invalid JSON", fixed(llmtest.Completion("Here is the summary: it went well.", 40, 9)), "invalid JSON", 1, 40},
		{"not an object", fixed(llmtest.Completion(`["a list"]`, 40, 9)), "invalid JSON", 1, 40},
		{"empty answer", fixed(llmtest.Completion("", 40, 0)), "invalid JSON: the answer is empty", 1, 40},
		{"missing field", answer(func(s map[string]any) { delete(s, "entities") }), `missing field "entities"`, 1, 40},
		{"empty title", answer(func(s map[string]any) { s["title"] = " " }), `field "title" is empty`, 1, 40},
		{"content not a string", answer(func(s map[string]any) { s["content"] = 42 }), `field "content" is not a string`, 1, 40},
		{"keywords not strings", answer(func(s map[string]any) { s["keywords"] = []int{1} }), `field "keywords" is not a list of strings`, 1, 40},
		{"oversized content", answer(func(s map[string]any) { s["content"] = strings.Repeat("The agent did a thing. ", 200) }),
			"oversized answer: the content is", 1, 40},
		{"cut at max_tokens", fixed(llmtest.CompletionEnding(`{"title": "Cut`, "length", 40, 700)), "oversized answer: cut off at the 700-token limit", 1, 40},
		{"oversized answer", fixed(llmtest.Completion(strings.Repeat("x", 20000), 40, 9)), "oversized answer: 20000 bytes", 1, 40},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, llmOptions{}, tc.h)
			blk := b.fold(t, 1, 10, fold.L2)
			ex := extractiveBlock(t, 1, 10, fold.L2)
			checkFallback(t, blk, ex, tc.reason)
			if blk.LLM.Calls != tc.calls || blk.LLM.PromptTokens != tc.tokens {
				t.Errorf("block usage %+v, want %d calls and %d prompt tokens", blk.LLM, tc.calls, tc.tokens)
			}
			if u := b.totals(t); u.Failures != 1 || u.Calls != tc.calls {
				t.Errorf("run totals %+v", u)
			}
			st := b.eng.LLM.Stats()
			if st.Usage.Failures != 1 || len(st.Reasons) != 1 || !strings.Contains(st.Reasons[0], tc.reason) || st.Refused != nil {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func checkFallback(t *testing.T, blk, ex *fold.Block, reason string) {
	t.Helper()
	if !strings.HasPrefix(blk.Summarizer, "extractive (llm failed: ") || !strings.Contains(blk.Summarizer, reason) || !strings.HasSuffix(blk.Summarizer, ")") {
		t.Errorf("summarizer %q, want extractive (llm failed: …%s…)", blk.Summarizer, reason)
	}
	if blk.Content != ex.Content || blk.Title != ex.Title || !blk.Visible {
		t.Errorf("fallback block is not the extractive one:\n%s\nwant:\n%s", blk.Content, ex.Content)
	}
}

func TestLLMTimeoutFallsBack(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	b := setupLLM(t, llmOptions{timeout: 50 * time.Millisecond}, func(int, llmtest.Request) llmtest.Response {
		<-release
		return llmtest.Completion("{}", 1, 1)
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	blk := b.fold(t, 1, 10, fold.L2)
	checkFallback(t, blk, extractiveBlock(t, 1, 10, fold.L2), "timeout: no answer within 50ms")
}

func TestLLMRetries429(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{}, func(n int, _ llmtest.Request) llmtest.Response {
		if n <= 2 {
			r := llmtest.Error(429, "slow down")
			r.Header = map[string]string{"Retry-After": "2"}
			return r
		}
		return llmtest.JSON(llmtest.Summary(n), 300, 30)
	})
	blk := b.fold(t, 1, 10, fold.L2)
	if blk.Summarizer != "llm:small-model" || blk.Title != "Model title 3" {
		t.Fatalf("block %s %q", blk.Summarizer, blk.Title)
	}
	if fmt.Sprint(b.waits) != "[2s 2s]" {
		t.Errorf("waits %v, want Retry-After's 2s twice", b.waits)
	}
	if blk.LLM != (fold.LLMUsage{Calls: 3, PromptTokens: 300, CompletionTokens: 30}) {
		t.Errorf("usage %+v", blk.LLM)
	}
}

// TestLLMBadKeyOnce: a refused key costs one call, not one per block, and
// every block says why it is extractive.
func TestLLMBadKeyOnce(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{concurrency: 1}, func(int, llmtest.Request) llmtest.Response {
		return llmtest.Error(401, "Incorrect API key provided: sk-test")
	})
	for _, r := range [][2]int{{1, 4}, {5, 8}, {9, 12}} {
		blk := b.fold(t, r[0], r[1], fold.L2)
		if blk.Summarizer != "extractive (llm failed: invalid API key (HTTP 401): Incorrect API key provided: sk-test)" {
			t.Errorf("block %s: %q", blk.ID, blk.Summarizer)
		}
	}
	if n := b.srv.Calls(); n != 1 {
		t.Errorf("%d calls after the key was refused, want 1", n)
	}
	st := b.eng.LLM.Stats()
	if st.Refused == nil || st.Usage.Failures != 3 || len(st.Reasons) != 1 {
		t.Errorf("stats %+v", st)
	}
	if u := b.totals(t); u.Failures != 3 || u.Calls != 1 {
		t.Errorf("totals %+v", u)
	}
}
