package fold_test

import (
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
)

// TestLLMSelfCheck: with Verify, a second call asks what the summary
// misses; named facts amend it once, and the block records the outcome.
func TestLLMSelfCheck(t *testing.T) {
	t.Parallel()
	const fact = "settings.yaml now sets retries to 5"
	amended := llmtest.Summary(9)
	amended["content"] = "The loader now reads retries; " + fact + "."
	amended["entities"] = []string{"settings.yaml"}
	cases := []struct {
		name    string
		check   llmtest.Response
		want    string // SelfCheck
		content string // in the block's content
		amended int
	}{
		{"amended by the model", llmtest.JSON(map[string]any{"missing": []string{fact}, "amended": amended}, 50, 20),
			fold.SelfCheckAmended, "The loader now reads retries; " + fact, 1},
		{"facts added when the rewrite is unusable", llmtest.JSON(map[string]any{"missing": []string{fact}, "amended": map[string]any{"title": "x"}}, 50, 20),
			fold.SelfCheckAmended, "The model summarized this range (answer 1). It says what was done and why. Also: " + fact, 1},
		{"nothing missing", llmtest.JSON(map[string]any{"missing": []string{}}, 50, 20),
			fold.SelfCheckComplete, "The model summarized this range (answer 1).", 0},
		{"check failed", llmtest.Error(400, "context too long"),
			"failed: HTTP 400: context too long", "The model summarized this range (answer 1).", 0},
		{"check answer invalid", llmtest.JSON(map[string]any{"facts": []string{}}, 50, 20),
			`failed: missing field "missing"`, "The model summarized this range (answer 1).", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, llmOptions{verify: true}, func(n int, _ llmtest.Request) llmtest.Response {
				if n == 1 {
					return llmtest.JSON(llmtest.Summary(n), 100, 10)
				}
				return tc.check
			})
			blk := b.fold(t, 1, 10, fold.L2)
			if blk.Summarizer != "llm:small-model" || blk.SelfCheck != tc.want || !strings.Contains(blk.Content, tc.content) {
				t.Errorf("block %s, self-check %q, content:\n%s\nwant %q with %q", blk.Summarizer, blk.SelfCheck, blk.Content, tc.want, tc.content)
			}
			reqs := b.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d calls, want 2", len(reqs))
			}
			q := reqs[1].Body.Messages[1].Content
			for _, s := range []string{"what important facts of these iterations are missing?", `"title":"Model title 1"`, "#### Iteration 5"} {
				if !strings.Contains(q, s) {
					t.Errorf("the self-check request lacks %q:\n%s", s, q)
				}
			}
			if u := b.totals(t); u.Amended != tc.amended || u.Calls != 2 || u.Failures != 0 {
				t.Errorf("totals %+v", u)
			}
			if tc.amended == 1 && tc.name == "amended by the model" {
				// The rewrite keeps the first answer's terms and the rules'.
				for _, e := range []string{"model_entity.py", "settings.yaml"} {
					if !strings.Contains(strings.Join(blk.Entities, " "), e) {
						t.Errorf("entity %q lost in the rewrite: %v", e, blk.Entities)
					}
				}
			}
		})
	}
}
