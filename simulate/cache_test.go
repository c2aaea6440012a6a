package simulate

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/window"
)

func TestRunPricesEachCallWithItsCachedPrefix(t *testing.T) {
	t.Parallel()
	src, eng, dir := replaySetup(t, 40, 3000)
	var prev string
	rep, err := Run(context.Background(), eng, src, Options{Workspace: dir, KeepRecent: 3, OnIteration: func(it Iteration, res memory.SyncResult) {
		defer func() { prev = res.Markdown }()
		if it.Iteration == 1 {
			if it.Break != nil || it.CachedTokens != 0 {
				t.Errorf("first call: break %v, cached %d; want none", it.Break, it.CachedTokens)
			}
			return
		}
		b := it.Break
		if b == nil || res.Markdown[:b.Offset] != prev[:b.Offset] {
			t.Fatalf("iteration %d: break %+v is not where the outputs first differ", it.Iteration, b)
		}
		if b.Offset < len(res.Markdown) && b.Offset < len(prev) && res.Markdown[b.Offset] == prev[b.Offset] {
			t.Fatalf("iteration %d: outputs still agree at the break %d", it.Iteration, b.Offset)
		}
		if b.Offset < len(res.Markdown) && b.Partition == "" {
			t.Fatalf("iteration %d: break at %d names no partition", it.Iteration, b.Offset)
		}
		if it.CachedTokens > it.InputTokens || it.CachedTokens+it.UncachedTokens != it.InputTokens {
			t.Fatalf("iteration %d: cached %d + uncached %d != input %d", it.Iteration, it.CachedTokens, it.UncachedTokens, it.InputTokens)
		}
		if b.Offset > 0 && it.CachedTokens == 0 {
			t.Fatalf("iteration %d: a %d-byte shared prefix counted as no tokens", it.Iteration, b.Offset)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Prices != DefaultPrices {
		t.Fatalf("prices %+v, want the defaults", rep.Prices)
	}
	var cost, raw float64
	for i, it := range rep.Series {
		cost += it.Cost
		raw += it.Raw.Cost
		if i > 0 && it.Raw.CachedTokens != rep.Series[i-1].RawTokens {
			t.Fatalf("iteration %d: raw history reuses %d tokens, want the previous call's %d", it.Iteration, it.Raw.CachedTokens, rep.Series[i-1].RawTokens)
		}
	}
	if rep.Cost != cost || rep.RawCost != raw || rep.Cost <= 0 || rep.RawCost <= 0 {
		t.Fatalf("cost %.4f (series %.4f), raw %.4f (series %.4f)", rep.Cost, cost, rep.RawCost, raw)
	}
	if rep.CachedTokens+rep.UncachedTokens != rep.SentTokens {
		t.Fatalf("cached %d + uncached %d != sent %d", rep.CachedTokens, rep.UncachedTokens, rep.SentTokens)
	}
}

func TestPricesCost(t *testing.T) {
	t.Parallel()
	p := Prices{Input: 2, Cached: 0.5}
	if got := p.cost(1_000_000, 400_000); got != 1.2+0.2 {
		t.Fatalf("cost of 1M tokens, 400k cached: %v, want 1.4", got)
	}
	if got := newCall(p, 100, 150); got.CachedTokens != 100 || got.UncachedTokens != 0 {
		t.Fatalf("a call cannot reuse more than it sends: %+v", got)
	}
	var cw window.Context
	if pl := cw.PlaceAt(10); pl.Partition != "" {
		t.Fatalf("an empty window places offset 10 in %q", pl.Partition)
	}
}
