package fold_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
)

// TestLLMInputBounded: long tool outputs are reduced as in L0 rendering,
// and a range that still does not fit is cut down to the input bound, so a
// request never overflows the model.
func TestLLMInputBounded(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Response { return llmtest.JSON(llmtest.Summary(n), 1, 1) })
	eng := openLLMEngine(t, memory.LLMConfig{Summarizer: memory.SummarizerLLM, BaseURL: srv.BaseURL()})
	l := newDeltaLog("big", "Read the logs.")
	for i := 1; i <= 10; i++ {
		var out strings.Builder
		for j := range 3000 {
			fmt.Fprintf(&out, "line %d of log %d: worker %d handled request %x\n", j, i, j%7, j*i)
		}
		thought := strings.Repeat(fmt.Sprintf("Thinking hard about log %d and what it says. ", i), 60)
		l.think(thought, okCall("read_file", map[string]any{"path": fmt.Sprintf("logs/%d.log", i)}, out.String()))
	}
	run, _ := feed(t, eng, l)
	if _, err := eng.Folder.Fold(t.Context(), run, manual(1, 10, fold.L2)); err != nil {
		t.Fatal(err)
	}
	user := srv.Requests()[0].Body.Messages[1].Content
	n := eng.Tokenizer.Count(user)
	// The input bound plus the instructions and the task.
	if limit := fold.DefaultLLMInputTokens + 600; n > limit {
		t.Errorf("the prompt is %d tokens, over %d", n, limit)
	}
	if !strings.Contains(user, "[output truncated:") {
		t.Errorf("long outputs were not reduced as in L0")
	}
	for _, s := range []string{"Iteration 1 ", "Iteration 10 "} {
		if !strings.Contains(user, s) {
			t.Errorf("the prompt lost %q: every iteration shows at least its thought and L1 line", s)
		}
	}
}
