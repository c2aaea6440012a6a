package fold_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/journal"
)

// llmBundle is an engine whose summarizer is the LLM, pointed at a test
// server, over a 12-iteration run that nothing has folded yet.
type llmBundle struct {
	srv *llmtest.Server
	eng *memory.Engine
	run journal.Run
	mu  sync.Mutex
	// waits are the retry waits the client asked for (not slept).
	waits []time.Duration
}

// llmOptions tune setupLLM.
type llmOptions struct {
	verify  bool
	timeout time.Duration
	// concurrency of summaries (0: the default).
	concurrency int
}

func setupLLM(t *testing.T, o llmOptions, h llmtest.Handler) *llmBundle {
	t.Helper()
	b := &llmBundle{srv: llmtest.New(t, h)}
	verify := o.verify
	cfg := memory.LLMConfig{Summarizer: memory.SummarizerLLM, Model: "small-model", BaseURL: b.srv.BaseURL(), APIKey: "sk-test",
		Verify: &verify, Timeout: o.timeout, Concurrency: o.concurrency,
		Sleep: func(ctx context.Context, d time.Duration) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.waits = append(b.waits, d)
			return ctx.Err()
		}}
	b.eng = openLLMEngine(t, cfg)
	l := llmLog()
	b.run, _ = feed(t, b.eng, l)
	return b
}

func openLLMEngine(t *testing.T, cfg memory.LLMConfig) *memory.Engine {
	t.Helper()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: pgtest.Target(t, t.TempDir()), Budget: 128000, LLM: cfg})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// llmLog is a small run with reads, a write, a failure and a shell command.
func llmLog() *deltaLog {
	l := newDeltaLog("llm", "Make the config loader accept a retries setting.")
	for i := 1; i <= 12; i++ {
		switch i {
		case 3:
			l.think("Read config.yaml to see the current settings.", failCall("read_file", map[string]any{"path": "conf/config.yaml"}, "No such file or directory: conf/config.yaml"))
		case 5:
			l.think("Write the retries setting into settings.yaml because the loader reads that file.",
				okCall("write_file", map[string]any{"path": "settings.yaml", "content": "retries: 5\n"}, "wrote 11 bytes"))
		case 7:
			l.think("Run the loader tests.", okCall("run_shell", map[string]any{"command": "pytest tests/test_loader.py"}, "4 passed in 0.2s"))
		default:
			l.quietIteration(fmt.Sprintf("Read module %d to find where retries are parsed.", i))
		}
	}
	return l
}

// fold folds first..last at a level by hand.
func (b *llmBundle) fold(t *testing.T, first, last, level int) *fold.Block {
	t.Helper()
	blk, err := b.eng.Folder.Fold(context.Background(), b.run, manual(first, last, level))
	if err != nil {
		t.Fatalf("fold %d-%d: %v", first, last, err)
	}
	return blk
}

// totals are the run's LLM totals as stored.
func (b *llmBundle) totals(t *testing.T) fold.LLMUsage {
	t.Helper()
	u, err := b.eng.Fold.LLMTotals(context.Background(), b.run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// extractiveBlock folds the same range of the same run with the extractive
// summarizer, in a database of its own.
func extractiveBlock(t *testing.T, first, last, level int) *fold.Block {
	t.Helper()
	eng := openLLMEngine(t, memory.LLMConfig{Summarizer: memory.SummarizerExtractive})
	run, _ := feed(t, eng, llmLog())
	blk, err := eng.Folder.Fold(context.Background(), run, manual(first, last, level))
	if err != nil {
		t.Fatal(err)
	}
	return blk
}
