// Package simulate replays a journal iteration by iteration through the
// same path as `delta memory sync`, and reports what the memory did at each
// step: the window's size against the raw history, the folds and recalls
// made, the time each sync took and how much of the window's prefix stayed
// byte-identical. It answers "what would this do to my agent?" before the
// agent runs with it.
package simulate

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/window"
)

// Options tune Run.
type Options struct {
	// Workspace is the directory the replayed journal is written under
	// (.delta/<run>/journal.jsonl), as Delta Engine's workspace.
	Workspace string
	// KeepRecent is sync's --keep-recent.
	KeepRecent int
	// Prices price the calls; the zero value means DefaultPrices.
	Prices Prices
	// OnIteration, if set, is called after each iteration's sync with what
	// it did and the sync's own result (the window, the Markdown).
	OnIteration func(Iteration, memory.SyncResult)
}

// Iteration is what one replayed iteration's sync did.
type Iteration struct {
	Iteration int `json:"iteration"`
	// WindowTokens is the size of the sync output.
	WindowTokens int `json:"window_tokens"`
	// NativeTokens are the KeepRecent newest iterations in full, which the
	// agent runtime shows beside the sync output.
	NativeTokens int `json:"native_tokens"`
	// RawTokens is the whole history so far in full.
	RawTokens int `json:"raw_tokens"`
	// BudgetUsed is what the call sends (the memory file and the newest
	// iterations) over the budget.
	BudgetUsed float64  `json:"budget_used"`
	Folds      []Fold   `json:"folds"`
	Recalls    []Recall `json:"recalls"`
	// Refreshed are earlier recalls named again, whose TTL restarted.
	Refreshed []Recall `json:"refreshed"`
	// SyncMS is the wall time of the sync call, in process.
	SyncMS float64 `json:"sync_ms"`
	// PrefixKept is the share of the previous output's bytes that start
	// this one unchanged; 1 for the first iteration.
	PrefixKept float64 `json:"prefix_kept"`
	// Break is where this output first differs from the previous one;
	// nil for the first iteration.
	Break *Break `json:"break,omitempty"`
	Call
	// Raw is the same call with the whole history in full instead.
	Raw Call `json:"raw"`
}

// Call is what one LLM call sends and costs.
type Call struct {
	// InputTokens is what the call sends: the memory file and the newest
	// iterations in full, or the raw history.
	InputTokens int `json:"input_tokens"`
	// CachedTokens is the prefix a prompt cache reuses from the previous
	// call; UncachedTokens the rest, billed in full.
	CachedTokens   int `json:"cached_tokens"`
	UncachedTokens int `json:"uncached_tokens"`
	// Cost is the input's price in US dollars (Options.Prices).
	Cost float64 `json:"cost_usd"`
}

func newCall(p Prices, input, cached int) Call {
	cached = min(cached, input)
	return Call{InputTokens: input, CachedTokens: cached, UncachedTokens: input - cached, Cost: p.cost(input, cached)}
}

// Fold is a fold made by the scheduler.
type Fold struct {
	Block   string `json:"block"`
	Level   int    `json:"level"`
	First   int    `json:"first"`
	Last    int    `json:"last"`
	Trigger string `json:"trigger"`
	// Usage is the window's usage when the fold was decided (its tokens if
	// nothing more were folded, over the room): at most 1, the window
	// still had room (see fold.RoomReasons). It is rounded to three
	// places; usage is what it was.
	Usage float64 `json:"usage"`
	usage float64
}

// Recall is a recall made or refreshed by the triggers.
type Recall struct {
	ID     int    `json:"id"`
	First  int    `json:"first"`
	Last   int    `json:"last"`
	Reason string `json:"reason"`
	Query  string `json:"query"`
}

// Run replays src through eng.Sync, one chunk at a time, and returns the
// report. The journal file is written under opts.Workspace; eng should be
// open on a database no other run of the same id lives in.
func Run(ctx context.Context, eng *memory.Engine, src *Source, opts Options) (*Report, error) {
	path := memory.JournalPath(opts.Workspace, src.Run)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	defer f.Close()
	if opts.Prices == (Prices{}) {
		opts.Prices = DefaultPrices
	}
	rep := &Report{Run: src.Run, Budget: eng.Config.Budget, KeepRecent: opts.KeepRecent, Format: src.Format, Prices: opts.Prices}
	var prev string
	prevRaw := 0
	var counter rawCounter
	seen := map[int]bool{} // recall ids made so far
	for i, chunk := range src.Chunks {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if _, err := f.Write(chunk); err != nil {
			return rep, fmt.Errorf("simulate: append iteration %d: %w", i+1, err)
		}
		start := time.Now()
		res, err := eng.Sync(ctx, memory.SyncOptions{Journal: path, RunID: src.Run, KeepRecent: opts.KeepRecent})
		took := time.Since(start)
		if err != nil {
			return rep, fmt.Errorf("simulate: iteration %d: %w", i+1, err)
		}
		it := Iteration{Iteration: res.Import.Iterations, SyncMS: float64(took.Microseconds()) / 1000, Folds: []Fold{}, Recalls: []Recall{}, Refreshed: []Recall{}}
		if res.Context != nil {
			it.WindowTokens = res.Context.Tokens
		}
		raw, native, err := counter.update(ctx, eng, src.Run, res.Import.Iterations, opts.KeepRecent)
		if err != nil {
			return rep, err
		}
		it.RawTokens, it.NativeTokens = raw, native
		it.BudgetUsed = math.Round(1000*float64(it.WindowTokens+native)/float64(max(1, eng.Config.Budget))) / 1000
		for _, fe := range res.Step.Fold.Folds {
			it.Folds = append(it.Folds, Fold{Block: fe.Block, Level: fe.Level, First: fe.First, Last: fe.Last, Trigger: fe.Trigger,
				Usage: math.Round(fe.Usage*1000) / 1000, usage: fe.Usage})
		}
		for _, r := range res.Step.Recall.Recalls {
			rc := Recall{ID: r.ID, First: r.First, Last: r.Last, Reason: r.Reason, Query: r.Query}
			if seen[r.ID] {
				// Made earlier and named again: its TTL was refreshed.
				it.Refreshed = append(it.Refreshed, rc)
				continue
			}
			seen[r.ID] = true
			it.Recalls = append(it.Recalls, rc)
		}
		it.PrefixKept = 1
		cached := 0
		if i > 0 {
			shared := window.SharedPrefix(prev, res.Markdown)
			it.PrefixKept = prefixShare(shared, len(prev))
			var brk Break
			brk, cached = cacheUse(eng.Tokenizer, shared, res.Markdown, res.Context)
			it.Break = &brk
		}
		it.Call = newCall(opts.Prices, it.WindowTokens+it.NativeTokens, cached)
		// The raw history only grows at its end: the previous call's
		// history is this one's prefix.
		it.Raw = newCall(opts.Prices, it.RawTokens, prevRaw)
		prev, prevRaw = res.Markdown, it.RawTokens
		rep.add(it)
		if opts.OnIteration != nil {
			opts.OnIteration(it, res)
		}
	}
	rep.finish()
	return rep, nil
}

// rawCounter keeps the raw history's size through a replay, as Totals
// counts it at the end: each iteration in full, outputs whole. The newest
// iteration can still grow (a result arrives with the next lines), and is
// counted again then.
type rawCounter struct {
	total int
	// last is the newest iteration counted, and lastTokens what it
	// counted then.
	last, lastTokens int
}

// update counts the iterations up to last, and returns the raw total and
// the full-text tokens of the keep newest iterations.
func (c *rawCounter) update(ctx context.Context, eng *memory.Engine, run string, last, keep int) (int, int, error) {
	if last == 0 {
		return c.total, 0, nil
	}
	from := max(1, min(c.last, last-keep+1))
	notes, err := eng.Fold.Notes(ctx, run, from, last)
	if err != nil {
		return 0, 0, fmt.Errorf("simulate: read iterations %d-%d: %w", from, last, err)
	}
	native := 0
	for _, n := range notes {
		raw := max(n.RawTokens, n.L0Tokens)
		switch {
		case n.Number == c.last:
			c.total += raw - c.lastTokens
		case n.Number > c.last:
			c.total += raw
		}
		if n.Number == last {
			c.lastTokens = raw
		}
		if n.Number > last-keep {
			native += n.L0Tokens // as a window shows them
		}
	}
	c.last = last
	return c.total, native, nil
}

// prefixShare is the share of the previous output's prevLen bytes that the
// next one begins with (shared of them, window.SharedPrefix).
func prefixShare(shared, prevLen int) float64 {
	if prevLen == 0 {
		return 1
	}
	return float64(shared) / float64(prevLen)
}
