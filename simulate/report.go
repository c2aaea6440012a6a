package simulate

import (
	"fmt"
	"github.com/delta-memory/delta-memory/fold"
	"io"
	"slices"
	"strings"
)

// Report is a replay's totals and its per-iteration series.
type Report struct {
	Run        string `json:"run"`
	Format     string `json:"format"`
	Iterations int    `json:"iterations"`
	Budget     int    `json:"budget"`
	KeepRecent int    `json:"keep_recent"`
	// RawTokens is the whole history in full at the end.
	RawTokens int `json:"raw_tokens"`
	// WindowMax and WindowMean are the sync output's size.
	WindowMax  int     `json:"window_max"`
	WindowMean float64 `json:"window_mean"`
	// FinalContext is what the agent sees after the last iteration: the
	// sync output plus the KeepRecent newest iterations in full.
	FinalContext int `json:"final_context"`
	// FinalSavings is 1 - FinalContext/RawTokens.
	FinalSavings float64 `json:"final_savings"`
	// SentTokens and RawSentTokens add up, over every LLM call, the
	// context with memory and the whole history in full; RunSavings is
	// 1 - SentTokens/RawSentTokens.
	SentTokens    int64   `json:"sent_tokens"`
	RawSentTokens int64   `json:"raw_sent_tokens"`
	RunSavings    float64 `json:"run_savings"`
	// CachedTokens and RawCachedTokens add up the prefixes a prompt cache
	// reuses from the previous call, with memory and with the raw history;
	// UncachedTokens and RawUncachedTokens the rest.
	CachedTokens      int64 `json:"cached_tokens"`
	UncachedTokens    int64 `json:"uncached_tokens"`
	RawCachedTokens   int64 `json:"raw_cached_tokens"`
	RawUncachedTokens int64 `json:"raw_uncached_tokens"`
	// Prices are the input prices the costs are computed with.
	Prices Prices `json:"prices"`
	// Cost and RawCost are the run's input in US dollars with memory and
	// with the raw history, prompt caching counted; CostSavings is
	// 1 - Cost/RawCost.
	Cost        float64 `json:"cost_usd"`
	RawCost     float64 `json:"raw_cost_usd"`
	CostSavings float64 `json:"cost_savings"`
	// BudgetUsed is the mean over the calls of what each sent over the
	// budget (Iteration.BudgetUsed).
	BudgetUsed float64 `json:"budget_used_mean"`
	// Folds and Recalls count what was made, by trigger and by reason;
	// FoldsWithRoom the folds the scheduler made while the window still
	// had room, cascades aside (see fold.RoomReasons).
	Folds         Counts `json:"folds"`
	FoldsWithRoom Counts `json:"folds_with_room"`
	Recalls       Counts `json:"recalls"`
	// Refreshed counts recalls whose TTL restarted when named again.
	Refreshed int `json:"refreshed"`
	// SyncP50MS, SyncP99MS and SyncMaxMS are in-process sync times.
	SyncP50MS float64 `json:"sync_p50_ms"`
	SyncP99MS float64 `json:"sync_p99_ms"`
	SyncMaxMS float64 `json:"sync_max_ms"`
	// PrefixKept is the mean share of the previous output kept as the
	// next one's prefix, over iterations 2 onwards.
	PrefixKept float64     `json:"prefix_kept"`
	Series     []Iteration `json:"series"`
}

// Counts is a total and its parts by name.
type Counts struct {
	Total int            `json:"total"`
	By    map[string]int `json:"by"`
}

func (c *Counts) add(name string) {
	if c.By == nil {
		c.By = map[string]int{}
	}
	c.By[name]++
	c.Total++
}

// String lists the parts in a fixed order, then any others by name:
// "31 (pressure 9, interval 6)".
func (c Counts) String(order ...string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.By[k]))
		seen[k] = true
	}
	var rest []string
	for k := range c.By {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.By[k]))
	}
	return fmt.Sprintf("%d (%s)", c.Total, strings.Join(parts, ", "))
}

func (r *Report) add(it Iteration) {
	r.Series = append(r.Series, it)
	for _, f := range it.Folds {
		r.Folds.add(f.Trigger)
		if f.usage > 0 && f.usage <= 1 && f.Trigger != fold.TriggerCascade {
			r.FoldsWithRoom.add(f.Trigger)
		}
	}
	for _, rc := range it.Recalls {
		r.Recalls.add(rc.Reason)
	}
	r.Refreshed += len(it.Refreshed)
}

// finish computes the totals from the series.
func (r *Report) finish() {
	if r.Folds.By == nil {
		r.Folds.By = map[string]int{}
	}
	if r.Recalls.By == nil {
		r.Recalls.By = map[string]int{}
	}
	if r.FoldsWithRoom.By == nil {
		r.FoldsWithRoom.By = map[string]int{}
	}
	n := len(r.Series)
	if n == 0 {
		return
	}
	last := r.Series[n-1]
	r.Iterations, r.RawTokens = last.Iteration, last.RawTokens
	r.FinalContext = last.WindowTokens + last.NativeTokens
	r.FinalSavings = savings(int64(r.FinalContext), int64(r.RawTokens))
	var window, prefix, used float64
	times := make([]float64, 0, n)
	for i, it := range r.Series {
		r.WindowMax = max(r.WindowMax, it.WindowTokens)
		window += float64(it.WindowTokens)
		used += it.BudgetUsed
		r.SentTokens += int64(it.WindowTokens + it.NativeTokens)
		r.RawSentTokens += int64(it.RawTokens)
		r.CachedTokens += int64(it.CachedTokens)
		r.UncachedTokens += int64(it.UncachedTokens)
		r.RawCachedTokens += int64(it.Raw.CachedTokens)
		r.RawUncachedTokens += int64(it.Raw.UncachedTokens)
		r.Cost += it.Cost
		r.RawCost += it.Raw.Cost
		if i > 0 {
			prefix += it.PrefixKept
		}
		times = append(times, it.SyncMS)
	}
	r.WindowMean, r.BudgetUsed = window/float64(n), used/float64(n)
	r.RunSavings = savings(r.SentTokens, r.RawSentTokens)
	if r.RawCost > 0 {
		r.CostSavings = 1 - r.Cost/r.RawCost
	}
	if n > 1 {
		r.PrefixKept = prefix / float64(n-1)
	}
	slices.Sort(times)
	r.SyncP50MS, r.SyncP99MS, r.SyncMaxMS = quantile(times, 0.50), quantile(times, 0.99), times[n-1]
}

func savings(used, raw int64) float64 {
	if raw <= 0 {
		return 0
	}
	return 1 - float64(used)/float64(raw)
}

// quantile is the nearest-rank quantile of sorted values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// WriteText prints the totals as the few lines `simulate` shows.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "iterations %s   raw history %s tokens   memory file ≤ %s (max %s, mean %s)\n",
		Thousands(r.Iterations), Thousands(r.RawTokens), Thousands(r.Budget), Thousands(r.WindowMax), Thousands(int(r.WindowMean+0.5)))
	fmt.Fprintf(w, "folds: %s   recalls: %s, %d refreshed\n",
		r.Folds.String("pressure", "interval", "milestone", "cascade"), r.Recalls.String("explicit", "implicit", "error"), r.Refreshed)
	fmt.Fprintf(w, "budget used: mean %.1f%% per call (memory file and newest iterations)   %s\n", 100*r.BudgetUsed, r.roomText())
	fmt.Fprintf(w, "sync p50 %.1f ms  p99 %.1f ms (in process)   prefix kept between iterations: %.1f%%\n",
		r.SyncP50MS, r.SyncP99MS, 100*r.PrefixKept)
	fmt.Fprintf(w, "last call: %s tokens (memory %s + %d newest iterations %s) instead of %s: %.1f%% smaller\n",
		Thousands(r.FinalContext), Thousands(r.FinalContext-r.lastNative()), r.KeepRecent, Thousands(r.lastNative()),
		Thousands(r.RawTokens), 100*r.FinalSavings)
	fmt.Fprintf(w, "whole run: %s tokens sent over %d calls instead of %s: %.1f%% saved\n",
		thousands64(r.SentTokens), len(r.Series), thousands64(r.RawSentTokens), 100*r.RunSavings)
	fmt.Fprintf(w, "prompt cache: memory %s cached + %s uncached (%.1f%% hit), raw history %s + %s (%.1f%% hit)\n",
		thousands64(r.CachedTokens), thousands64(r.UncachedTokens), 100*share(r.CachedTokens, r.SentTokens),
		thousands64(r.RawCachedTokens), thousands64(r.RawUncachedTokens), 100*share(r.RawCachedTokens, r.RawSentTokens))
	fmt.Fprintf(w, "input cost at %s: memory $%.2f, raw history $%.2f: %.1f%% saved\n",
		r.Prices.label(), r.Cost, r.RawCost, 100*r.CostSavings)
}

// roomText says how many folds came while the window had room, and why.
func (r *Report) roomText() string {
	if r.FoldsWithRoom.Total == 0 {
		return "no fold while the window had room"
	}
	var parts []string
	for _, t := range []string{fold.TriggerMilestone, fold.TriggerInterval, fold.TriggerPressure} {
		if n := r.FoldsWithRoom.By[t]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d: %s", t, n, fold.RoomReasons[t]))
		}
	}
	return fmt.Sprintf("folded while the window had room: %d (%s)", r.FoldsWithRoom.Total, strings.Join(parts, "; "))
}

// share is part/whole, 0 for an empty whole.
func share(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

func (r *Report) lastNative() int {
	if len(r.Series) == 0 {
		return 0
	}
	return r.Series[len(r.Series)-1].NativeTokens
}

// Thousands formats n with commas: 173075 → "173,075".
func Thousands(n int) string { return thousands64(int64(n)) }

func thousands64(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
