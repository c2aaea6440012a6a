package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/simulate"
	"github.com/delta-memory/delta-memory/window"
)

// glance is what the text form of `show` prints about a run.
type glance struct {
	run     journal.Run
	counts  journal.Counts
	totals  fold.Totals
	recalls map[string]int
	cx      *window.Context
	blocks  []*fold.Block
	marks   []bookmarkJSON
	active  []retrievedJSON
	folds   []fold.LogEntry
	llm     fold.LLMUsage
	// awaiting are the visible blocks awaiting the model's summary, and
	// breaker the summarizer endpoint's circuit breaker (nil without an
	// LLM summarizer).
	awaiting []string
	breaker  *memory.BreakerStatus
	// lastSync is how the newest memory file began like the one before it
	// (nil when no sync recorded one).
	lastSync *memory.LastSync
}

// lastFoldsShown is how many of the newest folds `show` lists.
const lastFoldsShown = 6

// palette colours text with ANSI escapes when on, and leaves it as is
// otherwise (not a terminal, or NO_COLOR set).
type palette struct{ on bool }

func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p palette) bold(s string) string { return p.paint("1", s) }
func (p palette) dim(s string) string  { return p.paint("2", s) }

// level colours a block level: the coarser, the cooler.
func (p palette) level(l int) string {
	codes := map[int]string{1: "32", 2: "36", 3: "34", 4: "35"}
	return p.paint(codes[l], fmt.Sprintf("L%d", l))
}

// bar draws used of budget in width cells, green under 70%, yellow under
// 90%, red above.
func (p palette) bar(used, budget, width int) string {
	if budget <= 0 {
		return strings.Repeat(" ", width)
	}
	filled := min(width, (used*width+budget-1)/budget)
	code := "32"
	switch share := float64(used) / float64(budget); {
	case share >= 0.9:
		code = "31"
	case share >= 0.7:
		code = "33"
	}
	return p.paint(code, strings.Repeat("█", filled)) + p.dim(strings.Repeat("░", width-filled))
}

func printGlance(w io.Writer, g glance, p palette) {
	r := g.run
	head := p.bold(r.ID) + "  " + r.Status + "  " + p.dim(r.Format)
	if r.Task != "" {
		head += "  · " + oneLine(r.Task, 90)
	}
	fmt.Fprintln(w, head)
	line := fmt.Sprintf("  %s iterations · %s events · %s tool calls (%s failed, %s pending) · %s iterations with errors",
		simulate.Thousands(r.Iterations), simulate.Thousands(int(r.Events)), simulate.Thousands(g.counts.Calls), simulate.Thousands(g.counts.FailedCalls),
		simulate.Thousands(g.counts.PendingCalls), simulate.Thousands(g.counts.ErrorIterations))
	fmt.Fprintln(w, line)
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(w, "  %s → %s (%s)\n", stamp(r.StartedAt), stamp(r.EndedAt), r.EndedAt.Sub(r.StartedAt).Round(time.Second))
	}
	if g.cx != nil {
		saved := savedText(g.cx.Tokens, g.totals.RawTokens)
		fmt.Fprintf(w, "  raw history %s tokens → window %s of %s (%s%s)\n",
			simulate.Thousands(g.totals.RawTokens), simulate.Thousands(g.cx.Tokens), simulate.Thousands(g.cx.Budget), g.cx.Tokenizer, saved)
	}
	fmt.Fprintf(w, "  folds %s   recalls %s\n", countsLine(g.totals.Folds, "pressure", "interval", "milestone", "cascade", "manual"),
		countsLine(g.recalls, "explicit", "implicit", "error"))
	if line := roomLine(g.totals.WithRoom); line != "" {
		fmt.Fprintln(w, line)
	}
	if !g.llm.IsZero() {
		fmt.Fprintf(w, "  llm %s calls, %s prompt + %s completion tokens; %s fell back to extractive; %s amended by the self-check\n",
			simulate.Thousands(g.llm.Calls), simulate.Thousands(g.llm.PromptTokens), simulate.Thousands(g.llm.CompletionTokens),
			simulate.Thousands(g.llm.Failures), simulate.Thousands(g.llm.Amended))
	}
	if l := g.lastSync; l != nil {
		fmt.Fprintf(w, "  last sync  iteration %s: memory file %s tokens, %.1f%% of the previous one's bytes kept as its prefix (about %s tokens a prompt cache reuses)%s\n",
			simulate.Thousands(l.Iteration), simulate.Thousands(l.Tokens), 100*l.PrefixKept(), simulate.Thousands(l.CachedTokens()), breakText(l.Break))
	}
	if len(g.awaiting) > 0 {
		fmt.Fprintf(w, "  llm summaries awaited for %d blocks (%s); they show their extractive summary until then\n",
			len(g.awaiting), strings.Join(g.awaiting, ", "))
	}
	if b := g.breaker; b != nil && b.OpenUntil != nil && time.Now().Before(*b.OpenUntil) {
		fmt.Fprintf(w, "  llm circuit open until %s after %d failures in a row (%s): no calls to %s until then\n",
			b.OpenUntil.UTC().Format("15:04:05 UTC"), b.Failures, b.Reason, b.Endpoint)
	}
	printPartitions(w, g.cx, p)
	printVisibleBlocks(w, g.blocks, p)
	printActive(w, g.active, p)
	printBookmarks(w, g.marks)
	printLastFolds(w, g.folds, p)
}

// countsLine is "31 (pressure 9 · interval 6)", parts in order, then the
// rest by name; zero parts are left out.
func countsLine(by map[string]int, order ...string) string {
	total := 0
	keys := make([]string, 0, len(by))
	for k, n := range by {
		total += n
		if !slices.Contains(order, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range append(order, keys...) {
		if by[k] > 0 {
			parts = append(parts, k+" "+simulate.Thousands(by[k]))
		}
	}
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%s (%s)", simulate.Thousands(total), strings.Join(parts, " · "))
}

var partitionLabels = map[string]string{
	window.Static: "static", window.LongTerm: "long-term", window.ShortTerm: "short-term",
	window.State: "state", window.Working: "working", window.Retrieved: "retrieved", window.Dynamic: "dynamic",
}

func printPartitions(w io.Writer, cx *window.Context, p palette) {
	if cx == nil {
		return
	}
	fmt.Fprintf(w, "\n%s\n", p.bold("partitions"))
	for _, part := range cx.Partitions {
		fmt.Fprintf(w, "  %-11s %s %7s / %-7s %s\n", partitionLabels[part.Name], p.bar(part.Tokens, part.Budget, 24),
			simulate.Thousands(part.Tokens), simulate.Thousands(part.Budget), p.dim(plural(len(part.Sections), "section")))
	}
	name, note := "window", ""
	if cx.Native > 0 {
		// The memory file: the newest iterations come with the call.
		name, note = "memory file", fmt.Sprintf("   (the %d newest iterations not included)", cx.Native)
	}
	fmt.Fprintf(w, "  %-11s %s %7s / %s%s\n", name, p.bar(cx.Tokens, cx.Budget, 24), simulate.Thousands(cx.Tokens), simulate.Thousands(cx.Budget), note)
	if line := staticLine(cx); line != "" {
		fmt.Fprintln(w, p.dim(line))
	}
}

// staticLine says how the window was laid out when the system prompt and
// task need more than Static's share, "" when they fit it.
func staticLine(cx *window.Context) string {
	if len(cx.Partitions) == 0 || cx.Partitions[0].Name != window.Static || cx.Shares.Static <= cx.StaticShare || cx.StaticShare >= 1 {
		return ""
	}
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
	shrink := pct((1 - cx.Shares.Static) / (1 - cx.StaticShare))
	if got := cx.Partitions[0].Budget; cx.StaticNeed > got {
		return fmt.Sprintf("  static needs %s tokens, more than its cap of %s of the budget: it is cut to %s, the system prompt first, and the other shares shrink to %s of theirs",
			simulate.Thousands(cx.StaticNeed), pct(cx.Shares.Static), simulate.Thousands(got), shrink)
	}
	return fmt.Sprintf("  static needs %s tokens, more than its %s share: it takes %s of the budget, and the other shares shrink to %s of theirs",
		simulate.Thousands(cx.StaticNeed), pct(cx.StaticShare), pct(cx.Shares.Static), shrink)
}

// roomLine says which folds the scheduler made while the window still had
// room, and why; "" when none did.
func roomLine(by map[string]int) string {
	if len(by) == 0 {
		return ""
	}
	var parts []string
	n := 0
	for _, t := range []string{fold.TriggerMilestone, fold.TriggerInterval, fold.TriggerPressure} {
		if by[t] > 0 {
			n += by[t]
			parts = append(parts, fmt.Sprintf("%s %s: %s", t, simulate.Thousands(by[t]), fold.RoomReasons[t]))
		}
	}
	return fmt.Sprintf("  folded while the window had room: %s (%s)", simulate.Thousands(n), strings.Join(parts, "; "))
}

func printVisibleBlocks(w io.Writer, bs []*fold.Block, p palette) {
	if len(bs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", p.bold(fmt.Sprintf("blocks shown (%s)", simulate.Thousands(len(bs)))))
	for _, b := range bs {
		fmt.Fprintf(w, "  %s %-11s %-9s imp %.2f  %5s tok  %s  %s\n", p.level(b.Level), b.Range(), b.Trigger, b.Importance, simulate.Thousands(b.Tokens),
			oneLine(b.Title, 60), p.dim(b.ID))
	}
}

func printActive(w io.Writer, rcs []retrievedJSON, p palette) {
	if len(rcs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", p.bold(fmt.Sprintf("recalled (%s active)", simulate.Thousands(len(rcs)))))
	for _, r := range rcs {
		fmt.Fprintf(w, "  %-11s %-8s %-32s since %d, until %d, shown %s\n",
			fmt.Sprintf("%d-%d", r.Iterations[0], r.Iterations[1]), r.Reason, oneLine(r.Query, 32), r.Since, r.Expires, r.Shown)
	}
}

func printBookmarks(w io.Writer, marks []bookmarkJSON) {
	if len(marks) == 0 {
		return
	}
	fmt.Fprintf(w, "\nbookmarks\n")
	for _, m := range marks {
		// A note is a line of why; a long one is cut here (show --json
		// and the window keep it whole).
		fmt.Fprintf(w, "  [%d] %s\n", m.Iteration, oneLine(m.Note, 100))
		if !m.InWindow {
			fmt.Fprintf(w, "       its text is not in the window: the budget cannot hold it (see context --format json, \"omitted\")\n")
		}
	}
}

func printLastFolds(w io.Writer, log []fold.LogEntry, p palette) {
	var folds []fold.LogEntry
	for _, e := range log {
		if strings.HasPrefix(e.Action, "fold:") {
			folds = append(folds, e)
		}
	}
	if len(folds) == 0 {
		return
	}
	folds = folds[max(0, len(folds)-lastFoldsShown):]
	fmt.Fprintf(w, "\n%s\n", p.bold("last folds"))
	for _, e := range folds {
		fmt.Fprintf(w, "  after %-5d %-10s %s\n", e.Iteration, strings.TrimPrefix(e.Action, "fold:"), oneLine(e.Detail, 90))
	}
}

// plural is "1 section", "2 sections".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return simulate.Thousands(n) + " " + noun + "s"
}

// breakText says where a memory file first changed, "" past its end.
func breakText(b window.Place) string {
	switch {
	case b.Partition == "":
		return ""
	case b.Source == "":
		return "; first change in " + b.Partition
	}
	return fmt.Sprintf("; first change in %s (%s)", b.Partition, b.Source)
}

// savedText says how much smaller the window is than the raw history, or,
// for a short run, that it is larger: the window adds its headings, the
// task and the goal to what the history holds.
func savedText(window, raw int) string {
	switch {
	case raw <= 0:
		return ""
	case window > raw:
		return ", larger: a short run, and the window adds headings, the task and the goal"
	}
	return fmt.Sprintf(", %.1f%% smaller", 100*(1-float64(window)/float64(raw)))
}
