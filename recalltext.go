package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// recallRender is a recall's text in both forms, with token counts.
type recallRender struct {
	full, lines             string
	fullTokens, linesTokens int
	// folded counts the folded iterations; 0 means the whole range shows
	// in full already.
	folded int
}

// renderKind is what an iteration's L0 rendering depends on besides the
// iteration: the output bound, whether it is shown alone, and whether it
// may be kept (renderings).
type renderKind struct {
	maxOut     int
	lone, keep bool
}

// recallOutputCap is the most tokens a recalled iteration's tool output
// shows, lone (a recall of one iteration) or in a range. Outside a
// question to memory a recall shows whole while it takes at most half the
// recalls' reach (fold.Config.RecallReach; the window's timeline lays it
// out as lines past that), and a lone iteration's output may take half of
// that: a step that returns to what it saw needs the output, not only the
// call, and the call, the thought and the heading need the rest. An
// iteration of a range gets a third of it. Bounded by the bound of a
// Working iteration's output (fold.Config.OutputCap).
//
// That bound used to follow the Retrieved share, a fifth of the reach at
// most budgets: at 2,000 and 4,000 tokens a revisited step's output
// showed 100 and 200 tokens of its head and tail, and the middle, where a
// reservation's flights and prices stand, was cut (eval trajectories).
// A window focused on a question (focused) keeps it: its hits fill all the
// room the others leave, and the summaries, the map of the run, keep what
// the hits leave.
func (e *Engine) recallOutputCap(lone, focused bool) int {
	whole := e.Config.RecallReach() / 2
	if focused {
		whole = e.Config.RetrievedBudget()
	}
	share := whole / 3
	if lone {
		share = whole / 2
	}
	return max(64, min(e.Config.OutputCap(), share))
}

// recallTexts renders the folded iterations of each range as L1 lines
// and, when wantFull and the range is short enough, in full (L0). For a
// window focused on a question (focused, window.Options.Focus), the
// iterations Working shows in full are rendered too, all but the newest
// (the window leaves them out of Working instead), and tool outputs are
// bounded as it needs (recallOutputCap). It reads in a few statements,
// whatever the number of ranges: one read of the notes' lines, and one
// of renderings (and of the journal, for those not kept) per kind of
// rendering. A fill renders tens of hits spread over a long run; read one
// at a time, their statements took most of its time.
func (e *Engine) recallTexts(ctx context.Context, run journal.Run, ranges [][2]int, wantFull, keep, focused bool) ([]recallRender, error) {
	var numbers []int
	for _, r := range ranges {
		first, last := r[0], min(r[1], run.Iterations)
		for n := first; n <= min(last, first+maxLines-1); n++ {
			numbers = append(numbers, n)
		}
	}
	slices.Sort(numbers)
	numbers = slices.Compact(numbers)
	notes, err := e.Fold.LinesAt(ctx, run.ID, numbers)
	if err != nil {
		return nil, err
	}
	out := make([]recallRender, len(ranges))
	kinds := make([]renderKind, len(ranges))
	folded := make([][]int, len(ranges))
	wanted := map[renderKind][]int{}
	for i, r := range ranges {
		first, last := r[0], min(r[1], run.Iterations)
		if first > last {
			continue
		}
		rr := &out[i]
		lo, _ := slices.BinarySearchFunc(notes, first, func(l fold.Line, n int) int { return cmp.Compare(l.Number, n) })
		var lb strings.Builder
		settled := true
		for _, nt := range notes[lo:] {
			if nt.Number > min(last, first+maxLines-1) {
				break
			}
			if nt.Block == "" {
				if !focused || nt.Number >= run.Iterations {
					continue
				}
				settled = false
			}
			folded[i] = append(folded[i], nt.Number)
			lb.WriteString(nt.L1)
			lb.WriteByte('\n')
			rr.linesTokens += nt.L1Tokens + 1
		}
		if more := last - (first + maxLines - 1); more > 0 {
			fmt.Fprintf(&lb, "[… %d more iterations: delta memory show --iteration N]\n", more)
			rr.linesTokens += 16
		}
		if rr.folded = len(folded[i]); rr.folded == 0 {
			continue
		}
		rr.lines = strings.TrimRight(lb.String(), "\n")
		if !wantFull || last-first+1 > maxFullRange {
			folded[i] = nil
			continue
		}
		// A lone iteration's rendering leaves out its own heading, which
		// would say again what the section's heading says, unless it says
		// how the iteration failed. Only folded iterations' renderings
		// are kept: they no longer change.
		k := renderKind{maxOut: e.recallOutputCap(first == last, focused), lone: first == last, keep: keep && settled}
		kinds[i] = k
		wanted[k] = append(wanted[k], folded[i]...)
	}
	made := make(map[renderKind]map[int]rendering, len(wanted))
	for k, nums := range wanted {
		slices.Sort(nums)
		rs, err := e.renderings(ctx, run, slices.Compact(nums), k.maxOut, k.lone, k.keep)
		if err != nil {
			return nil, err
		}
		m := make(map[int]rendering, len(rs))
		for _, r := range rs {
			m[r.Iteration] = r
		}
		made[k] = m
	}
	for i := range ranges {
		if len(folded[i]) == 0 {
			continue
		}
		var fb strings.Builder
		for _, n := range folded[i] {
			if r, ok := made[kinds[i]][n]; ok {
				fb.WriteString(r.Markdown)
				out[i].fullTokens += r.Tokens
			}
		}
		out[i].full = strings.TrimRight(fb.String(), "\n")
	}
	return out, nil
}

// widerRecalls gives each recall of one iteration made since the window
// was last laid out its wider form (window.Recalled.Wider): its output
// bounded as Working bounds one (fold.Config.OutputCap), when that shows
// more than the recalls' bound does. They are rendered in one read. The
// window shows one while what the others leave holds it.
func (e *Engine) widerRecalls(ctx context.Context, run journal.Run, recalls []window.Recalled, keep bool) error {
	wide := e.Config.OutputCap()
	if wide <= e.recallOutputCap(true, false) {
		return nil
	}
	var numbers []int
	lone := func(r *window.Recalled) bool { return !r.Carried && r.Covers[0] == r.Covers[1] && r.Full != "" }
	for i := range recalls {
		if lone(&recalls[i]) {
			numbers = append(numbers, recalls[i].Covers[0])
		}
	}
	slices.Sort(numbers)
	rs, err := e.renderings(ctx, run, slices.Compact(numbers), wide, true, keep)
	if err != nil || len(rs) == 0 {
		return err
	}
	byNumber := make(map[int]rendering, len(rs))
	for _, w := range rs {
		byNumber[w.Iteration] = w
	}
	for i := range recalls {
		r := &recalls[i]
		if w, ok := byNumber[r.Covers[0]]; ok && lone(r) && w.Tokens > r.FullTokens {
			r.Wider, r.WiderTokens = strings.TrimRight(w.Markdown, "\n"), w.Tokens
		}
	}
	return nil
}
