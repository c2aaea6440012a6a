package memory_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/llmtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/scoring"
)

// llmBed is a workspace whose syncs summarize with a local model server.
type llmBed struct {
	dir, db, journal string
	lines            []string
	srv              *llmtest.Server
	mu               sync.Mutex
	warnings         []string
}

// newLLMBed generates a run of n iterations, and a server answering with
// h.
func newLLMBed(t *testing.T, n int, h llmtest.Handler) *llmBed {
	t.Helper()
	b := &llmBed{dir: t.TempDir(), srv: llmtest.New(t, h)}
	b.db, b.journal = filepath.Join(b.dir, "memory.db"), filepath.Join(b.dir, "journal.jsonl")
	var buf bytes.Buffer
	if err := synth.WriteJSONL(&buf, synth.Config{Seed: 5, Iterations: n, RunID: "llm-run", MaxOutputBytes: 400}); err != nil {
		t.Fatal(err)
	}
	b.lines = strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
	return b
}

// write puts the first n lines of the journal in its file, each with its
// newline: a longer write appends to a shorter one.
func (b *llmBed) write(t *testing.T, n int) {
	t.Helper()
	text := strings.Join(b.lines[:n], "")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if err := os.WriteFile(b.journal, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// open opens an engine on the bed's database, as a new sync process
// would, with one summary at a time.
func (b *llmBed) open(t *testing.T) *memory.Engine {
	t.Helper()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: b.db, Budget: 6000,
		Warn: func(w string) { b.mu.Lock(); b.warnings = append(b.warnings, w); b.mu.Unlock() },
		LLM: memory.LLMConfig{Summarizer: memory.SummarizerLLM, BaseURL: b.srv.BaseURL(), Timeout: time.Minute, Concurrency: 1,
			Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func (b *llmBed) sync(t *testing.T, eng *memory.Engine, deadline time.Duration) memory.SyncResult {
	t.Helper()
	res, err := eng.Sync(context.Background(), memory.SyncOptions{Journal: b.journal, KeepRecent: 5, Deadline: time.Now().Add(deadline)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Context == nil || res.Context.Tokens > res.Context.Budget {
		t.Fatalf("the sync wrote no window within its budget: %+v", res.Context)
	}
	return res
}

// hung answers nothing until the test ends.
func hung(t *testing.T) (llmtest.Handler, func()) {
	release := make(chan struct{})
	var once sync.Once
	return func(int, llmtest.Request) llmtest.Response {
		<-release
		return llmtest.Error(503, "gone")
	}, func() { once.Do(func() { close(release) }) }
}

// TestSyncDoesNotWaitForAHungModel: an endpoint that takes the connection
// and never answers costs a sync its deadline, not a call timeout per
// fold; the memory is written with extractive summaries standing in, the
// blocks say they await the model, and one warning says why.
func TestSyncDoesNotWaitForAHungModel(t *testing.T) {
	t.Parallel()
	h, release := hung(t)
	b := newLLMBed(t, 160, h)
	t.Cleanup(release) // before the server closes
	b.write(t, len(b.lines))
	eng := b.open(t)
	start := time.Now()
	res := b.sync(t, eng, 3*time.Second)
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the sync took %s: it waited for the model", took)
	}
	u := res.Step.Upgrade
	if u.Waiting == 0 || !u.Deadline || u.Upgraded != 0 {
		t.Fatalf("upgrade %+v, want blocks waiting past the deadline", u)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "extractive summary") || !strings.Contains(res.Warnings[0], "deadline") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if len(b.warnings) != 1 {
		t.Errorf("Config.Warn got %q, want the one warning", b.warnings)
	}
	if !strings.Contains(res.Markdown, "[L2 ·") && !strings.Contains(res.Markdown, "[L3 ·") {
		t.Errorf("the memory shows no summary:\n%s", res.Markdown)
	}
}

// TestSyncUpgradesWhenTheModelAnswers: blocks made while a sync waited for
// nothing are upgraded within its deadline when the model answers, and the
// recall index finds the model's words.
func TestSyncUpgradesWhenTheModelAnswers(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	b := newLLMBed(t, 160, func(n int, _ llmtest.Request) llmtest.Response { return llmtest.JSON(llmtest.Summary(n), 50, 20) })
	b.write(t, len(b.lines))
	eng := b.open(t)
	res := b.sync(t, eng, time.Minute)
	if u := res.Step.Upgrade; u.Upgraded == 0 || u.Waiting != 0 || len(res.Warnings) != 0 {
		t.Fatalf("upgrade %+v, warnings %q", u, res.Warnings)
	}
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, "llm-run")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := eng.Fold.VisibleBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, blk := range blocks {
		if blk.Level >= 2 && (blk.AwaitingLLM || !strings.HasPrefix(blk.Summarizer, "llm:") || blk.Tokens != tok.Count(blk.Content)) {
			t.Errorf("block %s: summarizer %q awaiting %v tokens %d", blk.ID, blk.Summarizer, blk.AwaitingLLM, blk.Tokens)
		}
	}
	// The model's summaries hold a word that no extractive summary and
	// no iteration holds.
	word := "modelword"
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{word}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Kind != recall.KindBlock {
		t.Errorf("the index does not find the model's summary (%q): %+v", word, hits)
	}
}

// TestUpgradeInALaterSync: blocks a sync left awaiting the model are
// upgraded by the next sync once the model answers, with no new journal
// line.
func TestUpgradeInALaterSync(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	var answering atomic.Bool
	h, release := hung(t)
	model := llmtest.Model(tok)
	b := newLLMBed(t, 160, func(n int, r llmtest.Request) llmtest.Response {
		if answering.Load() {
			return model(n, r)
		}
		return h(n, r)
	})
	t.Cleanup(release)
	b.write(t, len(b.lines))
	first := b.sync(t, b.open(t), 3*time.Second)
	if first.Step.Upgrade.Waiting == 0 {
		t.Fatalf("set-up: no block awaits the model: %+v", first.Step.Upgrade)
	}
	answering.Store(true)
	release()
	later := b.sync(t, b.open(t), time.Minute)
	if u := later.Step.Upgrade; u.Waiting != 0 || u.Upgraded == 0 {
		t.Fatalf("later sync: %+v", u)
	}
	if later.Markdown == first.Markdown {
		t.Error("the memory did not change with the model's summaries")
	}
}

// TestBreakerOpensAndIsShared: after three endpoint failures in a row the
// circuit opens for every process of the database; after the cool-down, one
// trial call is made, and its failure opens it again at once.
func TestBreakerOpensAndIsShared(t *testing.T) {
	t.Parallel()
	b := newLLMBed(t, 160, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(500, "upstream down") })
	b.write(t, len(b.lines))
	res := b.sync(t, b.open(t), time.Minute)
	u := res.Step.Upgrade
	if u.Breaker == nil || u.Breaker.OpenUntil == nil || u.Failed != 3 || u.Waiting == 0 {
		t.Fatalf("first sync: %+v", u)
	}
	calls := b.srv.Calls()
	if calls != 3*4 { // three blocks, each tried and retried three times
		t.Errorf("%d calls, want 12", calls)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "circuit open") || !strings.Contains(res.Warnings[0], "HTTP 500") {
		t.Errorf("warnings %q", res.Warnings)
	}

	// Another process: no call while the circuit is open.
	res = b.sync(t, b.open(t), time.Minute)
	if b.srv.Calls() != calls || res.Step.Upgrade.Breaker == nil {
		t.Fatalf("a sync called an open circuit: %d calls, upgrade %+v", b.srv.Calls()-calls, res.Step.Upgrade)
	}

	// The cool-down ends: one trial, which fails and opens it again.
	db, err := sqldb.Open(context.Background(), b.db, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`UPDATE llm_breaker SET open_until = ?`, time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	res = b.sync(t, b.open(t), time.Minute)
	if got := b.srv.Calls() - calls; got != 4 || res.Step.Upgrade.Breaker == nil || res.Step.Upgrade.Failed != 1 {
		t.Errorf("after the cool-down: %d calls, upgrade %+v; want one block tried, the circuit open again", got, res.Step.Upgrade)
	}
}

// TestUpgradeGivesUpOnAnswersThatWouldFailAgain: an answer that is not a
// summary is not the endpoint being down: asking again would fail the same
// way, so the block keeps its extractive summary for good, named as the
// fallback it is, and the circuit stays closed.
func TestUpgradeGivesUpOnAnswersThatWouldFailAgain(t *testing.T) {
	t.Parallel()
	b := newLLMBed(t, 160, func(int, llmtest.Request) llmtest.Response {
		return llmtest.Completion("Sure! Here is a summary.", 30, 8)
	})
	b.write(t, len(b.lines))
	eng := b.open(t)
	res := b.sync(t, eng, time.Minute)
	u := res.Step.Upgrade
	if u.GivenUp == 0 || u.Waiting != 0 || u.Breaker != nil || u.Failed != 0 {
		t.Fatalf("upgrade %+v", u)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "for good") || !strings.Contains(res.Warnings[0], "invalid JSON") {
		t.Errorf("warnings %q", res.Warnings)
	}
	ctx := context.Background()
	blocks, err := eng.Fold.VisibleBlocks(ctx, "llm-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, blk := range blocks {
		if blk.Level >= 2 && (blk.AwaitingLLM || !strings.HasPrefix(blk.Summarizer, "extractive (llm failed: invalid JSON")) {
			t.Errorf("block %s: summarizer %q awaiting %v", blk.ID, blk.Summarizer, blk.AwaitingLLM)
		}
	}
	if st, ok, err := eng.Breaker(ctx); err != nil || !ok || st.Failures != 0 {
		t.Errorf("breaker %+v %v %v", st, ok, err)
	}
}

// TestUpgradeWaitingBetweenSyncs: what a sync did not wait for, the
// resident process asks for between syncs (UpgradeWaiting); cancelled, it
// leaves the blocks waiting as they were.
func TestUpgradeWaitingBetweenSyncs(t *testing.T) {
	t.Parallel()
	var answering atomic.Bool
	h, release := hung(t)
	b := newLLMBed(t, 160, func(n int, r llmtest.Request) llmtest.Response {
		if answering.Load() {
			return llmtest.JSON(llmtest.Summary(n), 50, 20)
		}
		return h(n, r)
	})
	t.Cleanup(release)
	b.write(t, len(b.lines))
	eng := b.open(t)
	first := b.sync(t, eng, 3*time.Second)
	waiting := first.Step.Upgrade.Waiting
	if waiting == 0 {
		t.Fatalf("set-up: no block awaits the model: %+v", first.Step.Upgrade)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := eng.UpgradeWaiting(ctx, "llm-run"); err == nil {
		t.Error("a cancelled upgrade reported no error")
	}
	if n, err := eng.Fold.CountAwaiting(context.Background(), "llm-run"); err != nil || n != waiting {
		t.Fatalf("after a cancelled upgrade %d blocks wait, want %d (%v)", n, waiting, err)
	}
	answering.Store(true)
	release()
	u, err := eng.UpgradeWaiting(context.Background(), "llm-run")
	if err != nil || u.Upgraded != waiting || u.Waiting != 0 {
		t.Fatalf("upgrade between syncs: %+v, %v", u, err)
	}
	hits, err := eng.Retrieve(context.Background(), mustRun(t, eng, "llm-run"), recall.Query{Keywords: []string{"modelword"}, DryRun: true})
	if err != nil || len(hits) == 0 || hits[0].Kind != recall.KindBlock {
		t.Errorf("the upgraded summaries are not indexed: %+v, %v", hits, err)
	}
}

func mustRun(t *testing.T, eng *memory.Engine, id string) journal.Run {
	t.Helper()
	run, err := eng.Journal.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestUpgradesKeepTheInvariants replays a run sync by sync against a model
// that answers most calls at once and leaves some past the deadline, so
// that blocks wait and are upgraded at every stage of the run: every
// memory file stays within its budget (counted again with the tokenizer),
// keeps each tool call with its result, and renders the same when built
// again from the same state.
func TestUpgradesKeepTheInvariants(t *testing.T) {
	t.Parallel()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	h, release := hung(t)
	var calls atomic.Int64
	b := newLLMBed(t, 240, func(n int, r llmtest.Request) llmtest.Response {
		if calls.Add(1)%7 == 3 {
			return h(n, r) // past the deadline
		}
		return llmtest.JSON(llmtest.Summary(n), 50, 20)
	})
	t.Cleanup(release)
	eng := b.open(t)
	ctx := context.Background()
	upgraded, waited := 0, 0
	for n := 40; n <= len(b.lines); n += 20 {
		b.write(t, min(n, len(b.lines)))
		res := b.sync(t, eng, 3*time.Second)
		upgraded += res.Step.Upgrade.Upgraded
		if res.Step.Upgrade.Waiting > 0 {
			waited++
		}
		if got := tok.Count(res.Markdown); got > res.Context.Budget {
			t.Fatalf("line %d: the memory file has %d tokens, budget %d", n, got, res.Context.Budget)
		}
		checkToolPairs(t, n, res.Context.Messages)
		run := mustRun(t, eng, "llm-run")
		again, err := eng.Context(ctx, run, memory.ContextOptions{Native: 5})
		if err != nil {
			t.Fatal(err)
		}
		if again.Markdown() != res.Markdown {
			t.Fatalf("line %d: the same state rendered differently", n)
		}
	}
	if upgraded == 0 || waited == 0 {
		t.Fatalf("set-up: %d blocks upgraded, %d syncs left some waiting; want both", upgraded, waited)
	}
}

// checkToolPairs fails when a tool message is apart from the assistant
// message that called it.
func checkToolPairs(t *testing.T, at int, msgs []fold.Message) {
	t.Helper()
	open := map[string]bool{}
	for k, m := range msgs {
		switch {
		case m.Role == "tool" && !open[m.ToolCallID]:
			t.Fatalf("line %d: message %d answers no open call (%q)", at, k, m.ToolCallID)
		case m.Role == "tool":
			delete(open, m.ToolCallID)
		case len(open) > 0:
			t.Fatalf("line %d: message %d (%s) splits calls %v from their results", at, k, m.Role, open)
		default:
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("line %d: calls %v have no result", at, open)
	}
}
