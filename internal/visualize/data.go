package visualize

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// Bounds on what one page holds, so that a long run gives a file a browser
// opens at once. The timeline is bounded by its segments, and the window
// by the budget; blocks and recalls grow with the run, so their text is cut.
const (
	// maxText is the most runes of a block summary or a window section.
	maxText = 4000
	// maxTerms is the most keywords, entities, state changes or errors
	// listed per block.
	maxTerms = 40
	// maxRecalls is how many recalls, newest first, the page lists.
	maxRecalls = 300
)

// Data is everything the page shows of one run. It holds no wall-clock
// time, so the same database state gives the same page.
type Data struct {
	Run       Run             `json:"run"`
	Window    Window          `json:"window"`
	Timeline  []Segment       `json:"timeline"`
	Blocks    []Block         `json:"blocks"`
	Recalls   []Recall        `json:"recalls"`
	Bookmarks []fold.Bookmark `json:"bookmarks"`
	// RecallsTotal counts the run's recalls; Recalls lists the newest.
	RecallsTotal int `json:"recalls_total"`
	// LastSync is the prompt cache's reuse at the newest sync, nil when no
	// sync recorded one.
	LastSync *LastSync `json:"last_sync"`
}

// LastSync is how the newest memory file a sync wrote began like the one
// before it (memory.LastSync), with the shares the page shows.
type LastSync struct {
	memory.LastSync
	PrefixKept   float64 `json:"prefix_kept"`
	CachedTokens int     `json:"cached_tokens_estimate"`
}

// Run is the run and its tool-call counts.
type Run struct {
	journal.Run
	Counts journal.Counts `json:"counts"`
}

// Window is the compiled context window: budget, usage and partitions,
// without the chat messages (the sections hold the same text).
type Window struct {
	Budget int `json:"budget"`
	Tokens int `json:"tokens"`
	// Native is how many newest iterations the window leaves to the
	// agent runtime (the memory file's view), 0 for the whole window.
	Native     int                `json:"native"`
	Tokenizer  string             `json:"tokenizer"`
	Partitions []window.Partition `json:"partitions"`
	Omitted    []string           `json:"omitted"`
}

// Block is a folded block of the run, visible or not, with its place in
// the block tree.
type Block struct {
	fold.Block
	// State is "visible", "absorbed" (into Parent) or "unfolded". A block
	// shown again after its parent was unfolded is visible, and keeps
	// its Parent.
	State string `json:"state"`
	// Children are the blocks it absorbed, oldest first.
	Children []string `json:"children"`
}

// Block states.
const (
	StateVisible  = "visible"
	StateAbsorbed = "absorbed"
	StateUnfolded = "unfolded"
)

// Recall is a range brought back into Retrieved, why, and how the window
// shows it now.
type Recall struct {
	recall.Recall
	// Shown is "full" or "lines" (in the window), "omitted" (active, but
	// the Retrieved share is full), "working" (active, but its iterations
	// show in full already) or "expired".
	Shown string `json:"shown"`
}

// How a recall that is not in the window shows, besides window.Shown*.
const (
	ShownWorking = "working"
	ShownExpired = "expired"
)

// Gather reads what the page shows of run from the engine: the blocks,
// the window compiled under the engine's budget (without the native
// newest iterations, as a sync writes it, when native > 0), the recalls
// and the bookmarks. It returns the engine's errors.
func Gather(ctx context.Context, eng *memory.Engine, run journal.Run, native int) (*Data, error) {
	counts, err := eng.Journal.Counts(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	d := &Data{Run: Run{Run: run, Counts: counts}}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{Native: native})
	if err != nil {
		return nil, fmt.Errorf("compile the window: %w", err)
	}
	d.Window = toWindow(cx)
	if l, ok, err := eng.LastSyncOf(ctx, run.ID); err != nil {
		return nil, err
	} else if ok {
		d.LastSync = &LastSync{LastSync: l, PrefixKept: l.PrefixKept(), CachedTokens: l.CachedTokens()}
	}

	all, err := eng.Fold.AllBlocks(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	d.Blocks = toBlocks(all)

	if d.Bookmarks, err = eng.Fold.Bookmarks(ctx, run.ID); err != nil {
		return nil, err
	}

	history, err := eng.Recall.History(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	d.RecallsTotal = len(history)
	if len(history) > maxRecalls {
		history = history[:maxRecalls]
	}
	d.Recalls = make([]Recall, len(history))
	for i, r := range history {
		if d.Recalls[i], err = toRecall(ctx, eng, run, cx, r); err != nil {
			return nil, err
		}
	}

	d.Timeline = Timeline(coverage(run, all, d.Bookmarks, d.Recalls))
	return d, nil
}

// coverage collects what shades the timeline: the visible blocks, the
// bookmarks and the recalls the window shows.
func coverage(run journal.Run, blocks []*fold.Block, marks []fold.Bookmark, recalls []Recall) Coverage {
	c := Coverage{Iterations: run.Iterations}
	for _, b := range blocks {
		if b.Visible {
			c.Visible = append(c.Visible, Span{Block: b.ID, Level: b.Level, First: b.First, Last: b.Last, Pinned: b.Pinned})
		}
	}
	for _, m := range marks {
		c.Bookmarks = append(c.Bookmarks, m.Iteration)
	}
	for _, r := range recalls {
		if r.Shown == window.ShownFull || r.Shown == window.ShownLines {
			c.Recalled = append(c.Recalled, Recalled{Recall: r.ID, First: r.First, Last: r.Last})
		}
	}
	return c
}

func toWindow(cx *window.Context) Window {
	w := Window{Budget: cx.Budget, Tokens: cx.Tokens, Native: cx.Native, Tokenizer: cx.Tokenizer, Omitted: nonNil(cx.Omitted)}
	w.Partitions = make([]window.Partition, len(cx.Partitions))
	for i, p := range cx.Partitions {
		p.Sections = slices.Clone(p.Sections)
		for k := range p.Sections {
			p.Sections[k].Content = cut(p.Sections[k].Content, maxText)
		}
		w.Partitions[i] = p
	}
	return w
}

// toBlocks converts the run's blocks and links each to its children (the
// blocks it absorbed), oldest first.
func toBlocks(all []*fold.Block) []Block {
	out := make([]Block, len(all))
	at := make(map[string]int, len(all))
	for i, b := range all {
		at[b.ID] = i
		// A child of an unfolded block shows again but keeps its parent.
		state := StateAbsorbed
		switch {
		case b.Visible:
			state = StateVisible
		case b.Unfolded:
			state = StateUnfolded
		}
		c := *b
		c.Content, c.Outcome = cut(c.Content, maxText), cut(c.Outcome, maxText)
		c.Keywords, c.Entities, c.StateChanges, c.Errors = terms(c.Keywords), terms(c.Entities), terms(c.StateChanges), terms(c.Errors)
		c.Pinned = nonNil(c.Pinned)
		c.Importance = math.Round(c.Importance*1000) / 1000
		out[i] = Block{Block: c, State: state, Children: []string{}}
	}
	for i := range out {
		if p, ok := at[out[i].Parent]; ok {
			out[p].Children = append(out[p].Children, out[i].ID)
		} else {
			out[i].Parent = "" // a parent not stored: show the block as a root
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Children, func(a, b string) int {
			x, y := &out[at[a]], &out[at[b]]
			return cmp.Or(cmp.Compare(x.First, y.First), cmp.Compare(y.Level, x.Level), strings.Compare(x.ID, y.ID))
		})
	}
	return out
}

// toRecall says how the window shows r: through its Recalls map while r is
// active, else why not.
func toRecall(ctx context.Context, eng *memory.Engine, run journal.Run, cx *window.Context, r recall.Recall) (Recall, error) {
	r.Score = math.Round(r.Score*1000) / 1000
	out := Recall{Recall: r}
	if !r.Active(run.Iterations) {
		out.Shown = ShownExpired
		return out, nil
	}
	if s, ok := cx.Recalls["recall:"+strconv.Itoa(r.ID)]; ok {
		out.Shown = s
		return out, nil
	}
	out.Shown = window.ShownOmitted
	last := min(r.Last, run.Iterations)
	full, err := eng.Fold.InFull(ctx, run.ID, r.First, last)
	if err != nil {
		return out, err
	}
	if full == last-r.First+1 {
		out.Shown = ShownWorking
	}
	return out, nil
}

// cut shortens s to at most n runes, saying how much was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("\n[… %d more characters]", len(r)-n)
}

// terms bounds a block's list of keywords, entities, changes or errors.
func terms(v []string) []string {
	if len(v) > maxTerms {
		v = append(v[:maxTerms:maxTerms], fmt.Sprintf("… %d more", len(v)-maxTerms))
	}
	return nonNil(v)
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
