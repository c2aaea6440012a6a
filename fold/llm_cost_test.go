package fold_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// importWithModel imports a journal file with the LLM summarizer pointed
// at srv, and returns the engine and the run.
func importWithModel(t *testing.T, srv *llmtest.Server, path string, verify bool, concurrency int) (*memory.Engine, journal.Run) {
	t.Helper()
	ctx := context.Background()
	eng, err := memory.Open(ctx, memory.Config{DBPath: pgtest.Target(t, t.TempDir()), LLM: memory.LLMConfig{
		Summarizer: memory.SummarizerLLM, BaseURL: srv.BaseURL(), Verify: &verify, Concurrency: concurrency}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	res, _, err := eng.Import(ctx, path, journal.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := eng.Journal.Run(ctx, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	return eng, run
}

// TestLLMCost imports the committed 400-iteration journal with the LLM
// summarizer against a test server that bills prompts as an endpoint would
// (BPE tokens of the messages), and reports the calls and prompt tokens per
// folded iteration. It fails past one call per 5 folded iterations.
//
//	go test ./fold -run TestLLMCost -v
func TestLLMCost(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "testdata", "journals", "synth-400.jsonl")
	modes := []bool{false, true}
	if raceDetector {
		modes = modes[:1] // the self-check pass adds calls, not concurrency
	}
	for _, verify := range modes {
		srv := llmtest.New(t, llmtest.Model(tok))
		eng, run := importWithModel(t, srv, path, verify, 0)
		ctx := context.Background()
		visible, err := eng.Fold.VisibleBlocks(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		folded := 0
		for _, b := range visible {
			folded += b.Len()
		}
		u, err := eng.Fold.LLMTotals(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := eng.Fold.AllBlocks(ctx, run.ID)
		llmBlocks := 0
		for _, b := range all {
			if b.Summarizer == "llm:"+fold.DefaultLLMModel {
				llmBlocks++
			}
		}
		perIter := float64(u.Calls) / float64(folded)
		t.Logf("verify=%v: %d iterations, %d folded; %d blocks (%d by the LLM); %d LLM calls = %.3f per folded iteration (1 per %.1f); "+
			"prompt tokens %d = %.0f per folded iteration; completion tokens %d; failures %d",
			verify, run.Iterations, folded, len(all), llmBlocks, u.Calls, perIter, 1/perIter, u.PromptTokens,
			float64(u.PromptTokens)/float64(folded), u.CompletionTokens, u.Failures)
		if u.Calls != srv.Calls() || u.Failures != 0 || llmBlocks == 0 {
			t.Errorf("totals %+v, server saw %d calls", u, srv.Calls())
		}
		if limit := 0.2 * float64(1+btoi(verify)); perIter > limit {
			t.Errorf("%.3f calls per folded iteration, over %.1f", perIter, limit)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLLMConcurrentSummariesDeterministic: independent ranges are
// summarized concurrently, and the blocks are the same as one at a time.
func TestLLMConcurrentSummariesDeterministic(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteJSONL(f, synth.Config{Seed: 5, Iterations: 160, RunID: "conc", MaxOutputBytes: 3000}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// The first request waits for a second to arrive (or gives up after a
	// while), so that overlap is seen whenever the folder overlaps calls.
	var mu sync.Mutex
	inFlight, most := 0, 0
	second := make(chan struct{})
	var once sync.Once
	model := llmtest.Model(tok)
	h := func(n int, r llmtest.Request) llmtest.Response {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight >= 2 {
			once.Do(func() { close(second) })
		}
		mu.Unlock()
		if n == 1 {
			select {
			case <-second:
			case <-time.After(5 * time.Second):
			}
		}
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		return model(n, r)
	}
	engA, run := importWithModel(t, llmtest.New(t, h), path, false, 4)
	engB, _ := importWithModel(t, llmtest.New(t, model), path, false, 1)
	if most < 2 {
		t.Errorf("at most %d summaries in flight with concurrency 4", most)
	}
	a, _ := engA.Fold.AllBlocks(context.Background(), run.ID)
	b, _ := engB.Fold.AllBlocks(context.Background(), run.ID)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d blocks concurrently, %d one at a time", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Content != y.Content || x.Summarizer != y.Summarizer || fmt.Sprint(x.Keywords) != fmt.Sprint(y.Keywords) || x.LLM != y.LLM {
			t.Errorf("block %d differs:\n%s %s\n%s\nvs\n%s %s\n%s", i, x.ID, x.Summarizer, x.Content, y.ID, y.Summarizer, y.Content)
		}
	}
}
