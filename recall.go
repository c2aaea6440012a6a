package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// Bounds on what one recall puts before the window's fitter, so that a
// recall of a long chapter costs the window what it can show, not what
// the chapter holds.
const (
	// maxOffered is how many active recalls are offered to the Retrieved
	// partition of a window laid out in the run's timeline; the rest are
	// named in show, not rendered. It leaves room for a recall of
	// recall.Config.MaxHits hits and a few older ones. A window focused on
	// a question offers up to recall.MaxFillHits: a fill takes as many
	// hits as that window has room for.
	maxOffered = 128
	// maxFullRange is the longest range offered in full (L0).
	maxFullRange = 8
	// maxLines is the most L1 lines a recall offers.
	maxLines = 40
)

// focus reports whether the current step asks memory a question: an
// explicit recall was made (or refreshed) at the newest iteration.
func focus(active []recall.Recall, now int) bool {
	for _, r := range active {
		if r.Reason == recall.ReasonExplicit && r.Since == now {
			return true
		}
	}
	return false
}

// recalled renders the recalls the window may show, reports whether the
// window is to focus on them (window.Options.Focus), and, when not, from
// which iteration its timeline is laid out (window.Options.LaidOut), given
// the last chapter or cascade (layoutFold, fold.Store.LayoutFold).
//
// A window focused on a question gets the active recalls, most wanted
// first; iterations Working shows in full are rendered too, and the window
// leaves them out of Working. Any other window lays its recalls out in the
// run's timeline (window.Recalled.Since): it gets the recalls that have
// not expired, and those that expired since the last chapter or cascade
// (fold.Store.LayoutFold) or the last multiple of four TTLs
// (recall.Config.FadeFrom), most recently made
// first, each rendered whole whatever the others take, so that how a
// recall shows never depends on the calls after it. Iterations shown in
// full in Working are left out.
func (e *Engine) recalled(ctx context.Context, run journal.Run, keep bool, layoutFold int) (recalls []window.Recalled, focused bool, laidOut int, err error) {
	if run.Iterations == 0 {
		return nil, false, 0, nil
	}
	active, err := e.Recall.Active(ctx, run.ID, run.Iterations)
	if err != nil {
		return nil, false, 0, err
	}
	focused = focus(active, run.Iterations)
	from := 0
	var held map[int]recall.Recall
	if !focused {
		from = e.Recall.Config().FadeFrom(run.Iterations, layoutFold)
		if active, err = e.Recall.Lingering(ctx, run.ID, run.Iterations, from, maxOffered); err != nil {
			return nil, false, 0, err
		}
		held = heldBy(active)
	}
	offered := maxOffered
	if focused {
		// A fill may have recorded more hits than a timeline offers: the
		// focused window renders them only while they could fit.
		offered = max(maxOffered, recall.MaxFillHits)
	}
	if len(active) > offered {
		active = active[:offered]
	}
	out := make([]window.Recalled, 0, len(active))
	// A focused window renders in full only while what was rendered could
	// still fit: the fitter shows the most wanted first, so text past what
	// the Retrieved partition may take (its share and what the others
	// leave) would be counted and thrown away. The bound is the whole
	// budget: Static may need far less than its share, and a window
	// focused on a question gives Retrieved all that the others leave.
	room := e.Config.Budget
	var prev recall.Recall
	var texts []recallRender
	hold := 0 // the recalls' held room, read once a recall needs it (fitRecall)
	batchAt, spent := 0, 0
	for i, r := range active {
		if i == batchAt+len(texts) {
			// Rendered a batch at a time (recallTexts); a text in full
			// past the room is dropped below, as if not rendered.
			batchAt = i
			n := maxFillBatch
			if focused && room > 0 {
				// No further than the room is likely to hold: rendering
				// in full past it is for nothing, and keeps renderings
				// the window does not show. Past the room, the lines
				// alone are rendered, a full batch at a time.
				typical := max(1, spent/max(1, i))
				n = min(n, max(4, room/typical*5/4+1))
			}
			batch := active[i:min(len(active), i+n)]
			ranges := make([][2]int, len(batch))
			for j, b := range batch {
				ranges[j] = [2]int{b.First, b.Last}
			}
			if texts, err = e.recallTexts(ctx, run, ranges, room > 0 || !focused, keep, focused); err != nil {
				return nil, false, 0, err
			}
		}
		rt := texts[i-batchAt]
		if focused && room <= 0 {
			rt.full, rt.fullTokens = "", 0
		}
		if rt.folded == 0 {
			continue // all of it shows in full already
		}
		room -= max(rt.fullTokens, rt.linesTokens)
		spent += max(rt.fullTokens, rt.linesTokens)
		// The section before names the query: say it once. Only a focused
		// window shows the recalls in this order; the timeline chooses its
		// own, so there every recall names its query.
		name := recallName(r)
		same := focused && r.Reason == recall.ReasonExplicit && prev.Reason == r.Reason && prev.Query == r.Query && prev.Since == r.Since
		if same {
			name = sameRecallName(r)
		}
		prev = r
		var fit rendering
		if !focused {
			if fit, err = e.fitRecall(ctx, run, r, name, rt, &hold, keep); err != nil {
				return nil, false, 0, err
			}
		}
		out = append(out, window.Recalled{Name: name, Bare: same, Source: fmt.Sprintf("recall:%d", r.ID),
			Full: rt.full, Lines: rt.lines, FullTokens: rt.fullTokens, LinesTokens: rt.linesTokens, Fitted: fit.Markdown, FittedTokens: fit.Tokens, Covers: [2]int{r.First, min(r.Last, run.Iterations)},
			Since: r.Since, Carried: r.Since < from, Lingering: r.Expires < run.Iterations})
		if h, ok := held[r.ID]; ok {
			out[len(out)-1].HeldBy = fmt.Sprintf("recall:%d", h.ID)
		}
	}
	if !focused {
		if err := e.widerRecalls(ctx, run, out, keep); err != nil {
			return nil, false, 0, err
		}
	}
	return out, focused, from, nil
}

// heldBy maps each recall, of recalls listed most recently made first,
// whose range an earlier-made one has too, to the latest such made before
// it: while that one shows (or shows through its own holder), the window
// shows it for both, where it stands, and nothing twice. The ranges are
// the same, so are the texts. Two ways make such a recall: one that
// expired is not refreshed when its iterations are named again, and a
// step that acts on them again makes one anew beside the refresh
// (recall.Recall.Again), so that it comes back at the step's place when
// the earlier one no longer shows.
func heldBy(recalls []recall.Recall) map[int]recall.Recall {
	held := make(map[int]recall.Recall)
	latest := make(map[[2]int]recall.Recall)
	for i := len(recalls) - 1; i >= 0; i-- {
		r := recalls[i]
		key := [2]int{r.First, r.Last}
		if h, ok := latest[key]; ok {
			held[r.ID] = h
		}
		latest[key] = r
	}
	return held
}

// sameRecallName heads a recall's section when the one before it came
// from the same query, which that one's heading names: the range alone,
// so that a recall of many short hits spends its room on them. The section
// shows it only when its text does not name its iterations itself
// (window.Recalled.Bare); the JSON form and the "not shown" trace always
// name it.
func sameRecallName(r recall.Recall) string {
	if r.Last != r.First {
		return fmt.Sprintf("Iterations %d-%d", r.First, r.Last)
	}
	return fmt.Sprintf("Iteration %d", r.First)
}

// recallName heads a recall's section: what came back and why.
func recallName(r recall.Recall) string {
	what := fmt.Sprintf("Iteration %d", r.First)
	if r.Last != r.First {
		what = fmt.Sprintf("Iterations %d-%d", r.First, r.Last)
	}
	switch r.Reason {
	case recall.ReasonError:
		return fmt.Sprintf("%s (recalled: a failure names %s)", what, r.Query)
	case recall.ReasonImplicit:
		return fmt.Sprintf("%s (recalled: you named %s)", what, r.Query)
	}
	return fmt.Sprintf("%s (recalled for %q)", what, r.Query)
}

// Retrieved is one hit of an explicit recall, with the text it brings back.
type Retrieved struct {
	Kind       string `json:"kind"`
	Iterations [2]int `json:"iterations"`
	// Matched is the part of Iterations the search matched; the rest is
	// the context brought back around it.
	Matched [2]int  `json:"matched"`
	Score   float64 `json:"score"`
	// Visible says the matched iterations show in full in the window
	// already; the Retrieved partition does not show them twice.
	Visible bool    `json:"visible"`
	Block   *string `json:"block"`
	Reason  string  `json:"reason"`
	// Content is the hit's folded iterations, in full while they fit the
	// Retrieved share, else one line each.
	Content string `json:"content"`
	// ID, Since and Expires say where the recall was recorded (0 in a
	// dry run).
	ID      int `json:"id"`
	Since   int `json:"since"`
	Expires int `json:"expires"`
}

// Retrieve runs an explicit recall: BM25 over the run's index, each hit
// expanded to its iterations from the journal (in full while they fit the
// room, else one line each), and recorded so that the next context shows
// them. With no limit (q.Limit and the configured limit 0) it takes, best
// first, as many hits as the window has room to show in full (at least
// one, at most recall.MaxFillHits).
func (e *Engine) Retrieve(ctx context.Context, run journal.Run, q recall.Query) ([]Retrieved, error) {
	auto := q.Limit <= 0 && e.Recall.Config().Limit == 0
	room := e.Config.RetrievedBudget()
	var hits []recall.Recall
	var texts []recallRender
	var err error
	if !auto {
		if hits, err = e.Recall.Retrieve(ctx, run, q); err != nil {
			return nil, err
		}
		ranges := make([][2]int, len(hits))
		for i, h := range hits {
			ranges[i] = [2]int{h.First, h.Last}
		}
		if texts, err = e.recallTexts(ctx, run, ranges, true, false, true); err != nil {
			return nil, err
		}
	} else {
		if hits, texts, room, err = e.fill(ctx, run, q); err != nil {
			return nil, err
		}
		if !q.DryRun {
			if hits, err = e.Recall.Record(ctx, run, hits); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Retrieved, 0, len(hits))
	for i, h := range hits {
		rt := texts[i]
		r := Retrieved{Kind: recall.KindIteration, Iterations: [2]int{h.First, h.Last}, Matched: h.Matched, Score: h.Score, Visible: h.Visible, Reason: h.Reason,
			ID: h.ID, Since: h.Since, Expires: h.Expires}
		if h.Block != "" {
			b := h.Block
			r.Kind, r.Block = recall.KindBlock, &b
		}
		r.Content = rt.lines
		if rt.full != "" && rt.fullTokens <= room {
			r.Content = rt.full
			room -= rt.fullTokens
		} else {
			room -= rt.linesTokens
		}
		out = append(out, r)
	}
	return out, nil
}

// Reindex rebuilds the recall index from the database, for every run.
func (e *Engine) Reindex(ctx context.Context, progress func(done, total int)) error {
	runs, err := e.Journal.Runs(ctx)
	if err != nil {
		return err
	}
	return e.Recall.Reindex(ctx, runs, progress)
}

// l0Cache keeps recent L0 renderings of recalled iterations: a recall
// shows for several iterations, and rendering (which counts tokens of long
// outputs) costs more than the rest of a context build.
type l0Cache struct {
	mu sync.Mutex
	m  map[l0Key]fold.L0
}

type l0Key struct {
	run     string
	number  int
	lastSeq int64
	maxOut  int
}

// l0CacheSize bounds the cache; it is emptied when full.
const l0CacheSize = 256

func (e *Engine) renderL0(it *journal.Iteration, maxOut int) fold.L0 {
	k := l0Key{it.Run, it.Number, it.LastSeq, maxOut}
	e.l0.mu.Lock()
	v, ok := e.l0.m[k]
	e.l0.mu.Unlock()
	if ok {
		return v
	}
	v = fold.RenderL0(e.Tokenizer, it, maxOut)
	e.l0.mu.Lock()
	if e.l0.m == nil || len(e.l0.m) >= l0CacheSize {
		e.l0.m = make(map[l0Key]fold.L0)
	}
	e.l0.m[k] = v
	e.l0.mu.Unlock()
	return v
}
