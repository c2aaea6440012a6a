package fold_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
)

func TestLLMSummaryRequestAndBlock(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{}, func(n int, _ llmtest.Request) llmtest.Response {
		return llmtest.JSON(llmtest.Summary(n), 1234, 56)
	})
	blk := b.fold(t, 1, 10, fold.L2)

	reqs := b.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Header.Get("Authorization") != "Bearer sk-test" || r.Body.Model != "small-model" || len(r.Body.Messages) != 2 ||
		r.Body.Messages[0].Role != "system" || r.Body.Messages[1].Role != "user" {
		t.Fatalf("request: auth %q, body %+v", r.Header.Get("Authorization"), r.Body)
	}
	if r.Body.ResponseFormat == nil || r.Body.ResponseFormat.Type != "json_object" || r.Body.MaxTokens == 0 {
		t.Errorf("request asks no JSON object or no max_tokens: %+v", r.Body)
	}
	user := r.Body.Messages[1].Content
	for _, s := range []string{"iterations 1–10", `"state_changes"`, "Make the config loader accept a retries setting.",
		"Write the retries setting into settings.yaml", "No such file or directory: conf/config.yaml", "#### Iteration 10"} {
		if !strings.Contains(user, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, user)
		}
	}
	if strings.Contains(user, "#### Iteration 11") {
		t.Errorf("the prompt shows an iteration outside the range")
	}

	if blk.Summarizer != "llm:small-model" || blk.Title != "Model title 1" {
		t.Errorf("block summarizer %q title %q", blk.Summarizer, blk.Title)
	}
	for _, s := range []string{"[L2 · iterations 1–10] Model title 1", "The model summarized this range (answer 1).", "Outcomes: tests pass",
		"[recall: iterations 1–10]", "No such file or directory"} {
		if !strings.Contains(blk.Content, s) {
			t.Errorf("block content lacks %q:\n%s", s, blk.Content)
		}
	}
	if blk.LLM.Calls != 1 || blk.LLM.PromptTokens != 1234 || blk.LLM.CompletionTokens != 56 {
		t.Errorf("block usage %+v", blk.LLM)
	}
	if got := b.totals(t); got != (fold.LLMUsage{Calls: 1, PromptTokens: 1234, CompletionTokens: 56}) {
		t.Errorf("run totals %+v", got)
	}
	stored, err := b.eng.Fold.Block(t.Context(), b.run.ID, blk.ID)
	if err != nil || stored.LLM != blk.LLM || stored.Summarizer != blk.Summarizer || stored.Content != blk.Content {
		t.Errorf("stored block differs: %+v %v", stored, err)
	}
}

// TestLLMKeepsExtractiveTerms: the model's keywords and entities add to the
// rules' ones; none of the rules' is lost, nor their errors and changes.
func TestLLMKeepsExtractiveTerms(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{}, func(n int, _ llmtest.Request) llmtest.Response {
		s := llmtest.Summary(n)
		s["entities"] = []string{"model_entity.py", "settings.yaml"} // one the rules found too
		s["keywords"] = []string{"ModelWord"}
		return llmtest.JSON(s, 10, 10)
	})
	blk := b.fold(t, 1, 10, fold.L2)
	ex := extractiveBlock(t, 1, 10, fold.L2)
	if len(ex.Keywords) == 0 || len(ex.Entities) == 0 || len(ex.Errors) == 0 || len(ex.StateChanges) == 0 {
		t.Fatalf("the fixture should give the rules something to find: %+v", ex)
	}
	for _, k := range ex.Keywords {
		if !slices.Contains(blk.Keywords, k) {
			t.Errorf("extractive keyword %q lost: %v", k, blk.Keywords)
		}
	}
	for _, e := range ex.Entities {
		if !slices.Contains(blk.Entities, e) {
			t.Errorf("extractive entity %q lost: %v", e, blk.Entities)
		}
	}
	if !slices.Contains(blk.Keywords, "modelword") || !slices.Contains(blk.Entities, "model_entity.py") {
		t.Errorf("the model's terms were not added: %v %v", blk.Keywords, blk.Entities)
	}
	if n := strings.Count(strings.Join(blk.Entities, "\n"), "settings.yaml"); n != 1 {
		t.Errorf("settings.yaml listed %d times: %v", n, blk.Entities)
	}
	if !slices.Equal(blk.Errors, ex.Errors) || !slices.Equal(blk.StateChanges, ex.StateChanges) {
		t.Errorf("errors/changes differ from the rules': %v %v vs %v %v", blk.Errors, blk.StateChanges, ex.Errors, ex.StateChanges)
	}
}

// TestLLMChapterAndPhase: L3 and L4 requests show the child blocks, and
// their answers make the blocks; a milestone's title names the chapter.
func TestLLMChapterAndPhase(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{}, func(n int, _ llmtest.Request) llmtest.Response {
		return llmtest.JSON(llmtest.Summary(n), 100*n, 10)
	})
	b.fold(t, 1, 4, fold.L2)
	b.fold(t, 5, 8, fold.L2)
	ch := b.fold(t, 1, 8, fold.L3)
	reqs := b.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	user := reqs[2].Body.Messages[1].Content
	for _, s := range []string{"chapter index for iterations 1–8", "Summaries:", "L2-1-4 (iterations 1–4): Model title 1", "L2-5-8 (iterations 5–8): Model title 2"} {
		if !strings.Contains(user, s) {
			t.Errorf("the chapter prompt lacks %q:\n%s", s, user)
		}
	}
	if ch.Summarizer != "llm:small-model" || ch.Title != "Model title 3" || !strings.HasPrefix(ch.Content, "[L3 · iterations 1–8] Model title 3") {
		t.Errorf("chapter: %s %q\n%s", ch.Summarizer, ch.Title, ch.Content)
	}
	ph := b.fold(t, 1, 12, fold.L4)
	if !strings.HasPrefix(ph.Content, "[L4 · iterations 1–12]") || strings.Contains(ph.Content, "\n") || ph.Summarizer != "llm:small-model" {
		t.Errorf("phase:\n%s", ph.Content)
	}
	// 1-8 is a chapter; 9-12 were loose and became an L2 first.
	if got := b.srv.Calls(); got != 5 {
		t.Errorf("%d calls, want 5 (L2, L2, L3, L2 for 9-12, L4)", got)
	}
	u := b.totals(t)
	if u.Calls != 5 || u.PromptTokens != 100+200+300+400+500 || u.CompletionTokens != 50 {
		t.Errorf("totals %+v", u)
	}
}

// TestLLMMilestoneTitleStands: a chapter a milestone made keeps the
// milestone's name, whatever the model calls it.
func TestLLMMilestoneTitleStands(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, llmOptions{}, func(n int, _ llmtest.Request) llmtest.Response {
		return llmtest.JSON(llmtest.Summary(n), 1, 1)
	})
	o := manual(1, 12, fold.L3)
	o.Title = "loader accepts retries"
	ch, err := b.eng.Folder.Fold(t.Context(), b.run, o)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Title != "loader accepts retries" || !strings.Contains(ch.Content, "] loader accepts retries\n") {
		t.Errorf("chapter title %q\n%s", ch.Title, ch.Content)
	}
}
