package fold

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Folder makes and unmakes blocks. Summaries are computed outside the write
// transaction, so a slow summarizer never holds the database lock; each fold
// is then written in one transaction, so a crash leaves no half block.
type Folder struct {
	Journal    *journal.Store
	Store      *Store
	Tokenizer  scoring.Tokenizer
	Summarizer Summarizer
	Config     Config
	// Concurrency is how many summaries of independent ranges are made at
	// once (at most 1 means one at a time). Blocks are still written one
	// by one, in range order, so the result does not depend on it.
	Concurrency int
	// Defer folds L2–L4 ranges with Extractive at once, the block marked
	// as awaiting the Summarizer's summary, which Upgrade makes later: a
	// slow or hung model then never holds a fold, nor the agent waiting
	// on it.
	Defer bool
}

// FoldOptions describe one fold.
type FoldOptions struct {
	First, Last int
	Level       int
	Trigger     string
	// Title names the range (a milestone's title).
	Title string
	// Strict refuses a range already folded at that level or coarser
	// (manual folds), where a scheduled fold takes the block as done.
	Strict bool
	// Exact refuses a range that cuts a visible block, with a
	// *RangeCutError, instead of widening it to the block's boundaries.
	Exact bool
	// After, if set, runs inside the fold's transaction, so that state that
	// goes with the fold commits with it.
	After func(tx *sqlx.Tx) error
	// Usage is the window's usage when the scheduler decided the fold,
	// recorded on the block (Block.Usage); 0 for a fold made by hand.
	Usage float64
}

// ErrFoldRace means another process changed the blocks of a range between
// the moment a fold looked at them and its commit. Nothing was written; the
// other process's folds stand.
var ErrFoldRace = errors.New("the range was folded concurrently")

// RangeCutError says a manual fold range cuts through a visible block.
type RangeCutError struct {
	Block       string
	First, Last int
}

// Error names the block the range would cut, and its iterations.
func (e *RangeCutError) Error() string {
	return fmt.Sprintf("the range cuts block %s (iterations %d-%d); fold a range that contains it whole, or unfold it first", e.Block, e.First, e.Last)
}

// Unwrap lets errors.Is match ErrBadRange.
func (e *RangeCutError) Unwrap() error { return ErrBadRange }

// Fold folds a range of a run into one block at a level, absorbing the
// visible blocks inside it. Iterations of the range that are not in a block
// yet are first folded into L2 blocks when the level is L3 or L4, so that a
// chapter always indexes summaries.
func (f *Folder) Fold(ctx context.Context, run journal.Run, o FoldOptions) (*Block, error) {
	p, err := f.plan(ctx, run, o)
	if err != nil {
		return nil, err
	}
	if p.done != nil {
		return p.done, nil
	}
	sum, err := f.summarize(ctx, p.req)
	if err != nil {
		return nil, err
	}
	return f.commit(ctx, run, p, sum)
}

// foldPlan is a fold ready to be summarized: its range as widened, the
// visible blocks it absorbs and the summarizer's request. done is set
// instead when the range is already folded as asked.
type foldPlan struct {
	o      FoldOptions
	inside []*Block
	req    *Request
	done   *Block
}

// plan checks a fold, widens its range to the blocks it cuts (unless
// Strict), folds loose iterations first for L3/L4, and gathers what the
// summarizer needs.
func (f *Folder) plan(ctx context.Context, run journal.Run, o FoldOptions) (*foldPlan, error) {
	if o.Level < L1 || o.Level > L4 {
		return nil, fmt.Errorf("%w: level %d (want 1 to 4)", ErrBadRange, o.Level)
	}
	if o.First < 1 || o.Last < o.First || o.Last > run.Iterations {
		return nil, &journal.RangeError{Run: run.ID, From: o.First, To: o.Last, Iterations: run.Iterations}
	}
	inside, err := f.visibleIn(ctx, run.ID, o.First, o.Last)
	if err != nil {
		return nil, err
	}
	widened := ""
	for _, b := range inside {
		if b.First < o.First || b.Last > o.Last {
			if o.Exact {
				return nil, &RangeCutError{Block: b.ID, First: b.First, Last: b.Last}
			}
			if widened == "" {
				widened = fmt.Sprintf(", widened from %d-%d to the blocks that range cuts,", o.First, o.Last)
			}
			o.First, o.Last = min(o.First, b.First), max(o.Last, b.Last)
		}
		if b.First == o.First && b.Last == o.Last && b.Level >= o.Level {
			if o.Strict {
				return nil, fmt.Errorf("%w: iterations %d-%d%s are already folded at level %d (block %s)", ErrBadRange, o.First, o.Last, widened, b.Level, b.ID)
			}
			return &foldPlan{done: b}, nil
		}
	}
	if o.Level >= L3 {
		if inside, err = f.wrapLoose(ctx, run, o, inside); err != nil {
			return nil, err
		}
	}
	req, err := f.request(ctx, run, o, inside)
	if err != nil {
		return nil, err
	}
	return &foldPlan{o: o, inside: inside, req: req}, nil
}

// commit writes a planned fold and its summary in one transaction.
func (f *Folder) commit(ctx context.Context, run journal.Run, p *foldPlan, sum Summary) (*Block, error) {
	o, inside, req := p.o, p.inside, p.req
	b := f.newBlock(run, o, req, sum)
	err := f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		// The summary was made outside the write lock; make sure the blocks
		// it absorbs are still the visible ones, or two processes folding
		// the same range would leave overlapping blocks.
		current, err := f.Store.queryBlocks(ctx, tx,
			`WHERE run_id = ? AND visible = 1 AND last_iter >= ? AND first_iter <= ? ORDER BY first_iter`, run.ID, o.First, o.Last)
		if err != nil {
			return err
		}
		if !sameBlocks(current, inside) {
			return fmt.Errorf("%w: iterations %d-%d", ErrFoldRace, o.First, o.Last)
		}
		if b.ID, err = uniqueID(ctx, tx, run.ID, o.Level, o.First, o.Last); err != nil {
			return err
		}
		if err := insertBlock(ctx, tx, b); err != nil {
			return err
		}
		for _, c := range inside {
			// An absorbed block's importance stays as it was at absorption,
			// computed here so that it does not depend on when the scheduler
			// last refreshed the visible blocks.
			imp := importance(f.Config, c.Last, c.AccessCount, len(c.Errors), len(c.StateChanges), run.Iterations)
			if _, err := tx.ExecContext(ctx, `UPDATE blocks SET parent = ?, visible = 0, importance = ? WHERE run_id = ? AND id = ?`, b.ID, imp, run.ID, c.ID); err != nil {
				return fmt.Errorf("absorb block %s: %w", c.ID, sqldb.Classify(err))
			}
		}
		if err := cover(ctx, tx, run.ID, o.First, o.Last, b.ID); err != nil {
			return err
		}
		if err := addUsage(ctx, tx, run.ID, sum.Usage); err != nil {
			return err
		}
		detail := fmt.Sprintf("L%d iterations %d-%d: %s", b.Level, b.First, b.Last, b.Title)
		if err := logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "fold:" + o.Trigger, Block: b.ID, Detail: detail}); err != nil {
			return err
		}
		if o.After != nil {
			if err := o.After(tx); err != nil {
				return err
			}
		}
		for _, n := range req.Unpinned {
			detail := fmt.Sprintf("iteration %d (%s) folds with the rest: the block keeps %d protected iterations at most", n.Number, n.Protect, f.Config.PinnedCap)
			if err := logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "unpin", Block: b.ID, Detail: detail}); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrFoldRace) && !sum.Usage.IsZero() {
		// The calls were made and paid for even though the other process's
		// block stands: count them.
		if uerr := f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error { return addUsage(ctx, tx, run.ID, sum.Usage) }); uerr != nil {
			return nil, errors.Join(err, uerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// sameBlocks reports whether two lists name the same blocks in order.
func sameBlocks(a, b []*Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

// cutBy returns the first of blocks that reaches outside first..last, or
// nil if they all lie within it.
func cutBy(blocks []*Block, first, last int) *Block {
	for _, b := range blocks {
		if b.First < first || b.Last > last {
			return b
		}
	}
	return nil
}

// cutRace is the error of fold o, whose range block cut now reaches past.
func cutRace(o FoldOptions, cut *Block) error {
	return fmt.Errorf("%w: iterations %d-%d, now cut by block %s (%d-%d)", ErrFoldRace, o.First, o.Last, cut.ID, cut.First, cut.Last)
}

// visibleIn returns the visible blocks that overlap first..last.
func (f *Folder) visibleIn(ctx context.Context, run string, first, last int) ([]*Block, error) {
	return f.Store.queryBlocks(ctx, f.Store.db.Read,
		`WHERE run_id = ? AND visible = 1 AND last_iter >= ? AND first_iter <= ? ORDER BY first_iter`, run, first, last)
}

// wrapLoose folds the iterations of first..last that no visible block covers
// into L2 blocks of at most Config.Chunk iterations, and returns all the
// blocks of the range.
func (f *Folder) wrapLoose(ctx context.Context, run journal.Run, o FoldOptions, inside []*Block) ([]*Block, error) {
	var gaps [][2]int
	next := o.First
	for _, b := range inside {
		if b.First > next {
			gaps = append(gaps, [2]int{next, b.First - 1})
		}
		next = b.Last + 1
	}
	if next <= o.Last {
		gaps = append(gaps, [2]int{next, o.Last})
	}
	if len(gaps) == 0 {
		return inside, nil
	}
	var chunks []FoldOptions
	for _, g := range gaps {
		for a := g[0]; a <= g[1]; a += f.Config.Chunk {
			z := min(g[1], a+f.Config.Chunk-1)
			chunks = append(chunks, FoldOptions{First: a, Last: z, Level: L2, Trigger: o.Trigger, Usage: o.Usage})
		}
	}
	if _, err := f.foldAll(ctx, run, chunks); err != nil {
		return nil, err
	}
	inside, err := f.visibleIn(ctx, run.ID, o.First, o.Last)
	if err != nil {
		return nil, err
	}
	// Another process may have folded across an end of the range while
	// the loose iterations were wrapped. The fold would absorb that block,
	// and the iterations past the range would show nowhere; commit checks
	// only that the blocks are still these, so refuse it here (plan has
	// widened the range to the blocks it cut before).
	if cut := cutBy(inside, o.First, o.Last); cut != nil {
		return nil, cutRace(o, cut)
	}
	return inside, nil
}

// request gathers what the summarizer needs for a fold.
func (f *Folder) request(ctx context.Context, run journal.Run, o FoldOptions, inside []*Block) (*Request, error) {
	req := &Request{Run: run.ID, Level: o.Level, First: o.First, Last: o.Last, Title: o.Title, Task: run.Task, Docs: run.Iterations}
	req.DF = f.Store.dfLookup(ctx, run.ID)
	if o.Level >= L3 {
		req.Children = inside
		return req, nil
	}
	notes, err := f.Store.Notes(ctx, run.ID, o.First, o.Last)
	if err != nil {
		return nil, err
	}
	if len(notes) != o.Last-o.First+1 {
		return nil, fmt.Errorf("fold iterations %d-%d of run %s: %d of them have notes; run the scheduler first", o.First, o.Last, run.ID, len(notes))
	}
	req.Notes = notes
	if o.Level == L2 {
		if req.Iterations, err = f.Journal.Iterations(ctx, run.ID, o.First, o.Last, journal.ReadOptions{}); err != nil {
			return nil, err
		}
	}
	marks, err := bookmarksTx(ctx, f.Store.db.Read, run.ID)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if _, ok := marks[n.Number]; ok {
			n.Protect = ProtectBookmark // first among the protected
		}
	}
	req.Pinned, req.Unpinned = pinned(notes, f.Config.PinnedCap)
	return req, nil
}

// summarize asks the configured summarizer, falling back to Extractive so
// that a fold is never lost to a failing model. The fallback names why, and
// keeps what the failed calls cost.
func (f *Folder) summarize(ctx context.Context, req *Request) (Summary, error) {
	if f.Summarizer == nil {
		return Extractive{}.Summarize(ctx, req)
	}
	if f.Defer && req.Level > L1 {
		if _, ext := f.Summarizer.(Extractive); !ext {
			s, err := Extractive{}.Summarize(ctx, req)
			s.Awaiting = true
			return s, err
		}
	}
	s, err := f.Summarizer.Summarize(ctx, req)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return Summary{}, ctx.Err()
	}
	fb, ferr := Extractive{}.Summarize(ctx, req)
	fb.Summarizer = FallbackName(err)
	fb.Usage = s.Usage
	fb.Usage.Failures++
	return fb, ferr
}

// FallbackName is the summarizer name a block made by Extractive records
// when the LLM failed: "extractive (llm failed: <reason>)".
func FallbackName(err error) string {
	return fmt.Sprintf("%s (llm failed: %v)", SummarizerExtractive, err)
}

func (f *Folder) newBlock(run journal.Run, o FoldOptions, req *Request, s Summary) *Block {
	b := &Block{
		Run: run.ID, Level: o.Level, Kind: KindOf(o.Level), First: o.First, Last: o.Last,
		Title: s.Title, Content: s.Content, Outcome: s.Outcome, Keywords: s.Keywords, Entities: s.Entities,
		StateChanges: s.StateChanges, Errors: s.Errors, Visible: true, Trigger: o.Trigger, Usage: o.Usage,
		Summarizer: s.Summarizer, CreatedIter: run.Iterations, CreatedAt: run.EndedAt, SelfCheck: s.SelfCheck, AwaitingLLM: s.Awaiting,
		LLM: LLMUsage{Calls: s.Usage.Calls, PromptTokens: s.Usage.PromptTokens, CompletionTokens: s.Usage.CompletionTokens},
	}
	for _, n := range req.Pinned {
		b.Pinned = append(b.Pinned, n.Number)
	}
	if len(req.Notes) > 0 {
		b.Start = journal.ParseTimeText(req.Notes[0].StartedAt)
		b.End = journal.ParseTimeText(req.Notes[len(req.Notes)-1].StartedAt)
	}
	for _, c := range req.Children {
		if b.Start.IsZero() || c.Start.Before(b.Start) && !c.Start.IsZero() {
			b.Start = c.Start
		}
		if c.End.After(b.End) {
			b.End = c.End
		}
		b.AccessCount += c.AccessCount
		b.LastAccessIter = max(b.LastAccessIter, c.LastAccessIter)
	}
	b.Tokens = f.Tokenizer.Count(b.Content)
	b.Importance = importance(f.Config, b.Last, b.AccessCount, len(b.Errors), len(b.StateChanges), run.Iterations)
	return b
}

// importance scores a block from its recency (iterations since its last),
// how often it was recalled, its errors and its state changes. The score is
// rounded to two decimals: finer steps would rewrite every visible block on
// every iteration, for a difference nothing acts on.
func importance(c Config, last, access, errors, changes, now int) float64 {
	v := scoring.Importance(c.Weights, scoring.Factors{
		Recency:     scoring.Recency(now-last, c.RecencyHalfLife),
		Access:      scoring.AccessFactor(access),
		Error:       min(1, float64(errors)/2),
		StateChange: min(1, float64(changes)/4),
	})
	return math.Round(v*100) / 100
}

// pinned picks the protected iterations a block keeps in detail: bookmarked
// ones first, then errors, then big state changes, then first successes of a tool; newer
// before older within a kind. Past the cap, the rest fold like the others;
// they are returned second, so the fold can log them.
func pinned(notes []*Note, cap int) (kept, dropped []*Note) {
	rank := map[string]int{ProtectBookmark: 0, ProtectError: 1, ProtectStateChange: 2, ProtectFirstOK: 3}
	var out []*Note
	for _, n := range notes {
		if n.Protect != "" {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b *Note) int {
		if ra, rb := rank[a.Protect], rank[b.Protect]; ra != rb {
			return ra - rb
		}
		return b.Number - a.Number
	})
	n := min(cap, len(out))
	return out[:n], out[n:]
}

// uniqueID names a new block, numbering repeats of the same range and level.
func uniqueID(ctx context.Context, tx *sqlx.Tx, run string, level, first, last int) (string, error) {
	for n := 1; ; n++ {
		id := blockID(level, first, last, n)
		var k int
		if err := tx.GetContext(ctx, &k, `SELECT COUNT(*) FROM blocks WHERE run_id = ? AND id = ?`, run, id); err != nil {
			return "", fmt.Errorf("name block: %w", sqldb.Classify(err))
		}
		if k == 0 {
			return id, nil
		}
	}
}

// Unfold stops showing a visible block: its children show again, and
// iterations it covered directly show in full. The block is kept, marked
// unfolded, and the change is logged.
func (f *Folder) Unfold(ctx context.Context, run journal.Run, id string) (*Block, error) {
	b, err := f.Store.Block(ctx, run.ID, id)
	if err != nil {
		return nil, err
	}
	if !b.Visible {
		why := "it is not shown"
		switch {
		case b.Unfolded:
			why = "it is unfolded already"
		case b.Parent != "":
			why = "it was absorbed by block " + b.Parent + "; unfold that one first"
		}
		return nil, fmt.Errorf("%w: cannot unfold %s: %s", ErrBadRange, id, why)
	}
	children, err := f.Store.queryBlocks(ctx, f.Store.db.Read, `WHERE run_id = ? AND parent = ? AND unfolded = 0 ORDER BY first_iter`, run.ID, id)
	if err != nil {
		return nil, err
	}
	// Iterations no child covers come back in full: render them again.
	var loose []int
	next := b.First
	for _, c := range children {
		for n := next; n < c.First; n++ {
			loose = append(loose, n)
		}
		next = c.Last + 1
	}
	for n := next; n <= b.Last; n++ {
		loose = append(loose, n)
	}
	renders := map[int]L0{}
	if len(loose) > 0 {
		its, err := f.Journal.Iterations(ctx, run.ID, loose[0], loose[len(loose)-1], journal.ReadOptions{})
		if err != nil {
			return nil, err
		}
		for _, it := range its {
			if slices.Contains(loose, it.Number) {
				renders[it.Number] = RenderL0(f.Tokenizer, it, f.Config.OutputCap())
			}
		}
	}
	err = f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE blocks SET visible = 0, unfolded = 1 WHERE id = ? AND run_id = ?`, id, run.ID); err != nil {
			return fmt.Errorf("unfold %s: %w", id, sqldb.Classify(err))
		}
		for _, c := range children {
			if _, err := tx.ExecContext(ctx, `UPDATE blocks SET visible = 1 WHERE run_id = ? AND id = ?`, run.ID, c.ID); err != nil {
				return fmt.Errorf("show block %s: %w", c.ID, sqldb.Classify(err))
			}
			if err := cover(ctx, tx, run.ID, c.First, c.Last, c.ID); err != nil {
				return err
			}
		}
		for _, n := range loose {
			r := renders[n]
			if err := uncover(ctx, tx, run.ID, n, r); err != nil {
				return err
			}
		}
		var names []string
		for _, c := range children {
			names = append(names, c.ID)
		}
		detail := fmt.Sprintf("iterations %d-%d show again", b.First, b.Last)
		if len(names) > 0 {
			detail = "blocks " + strings.Join(names, ", ") + " show again"
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "unfold", Block: id, Detail: detail})
	})
	if err != nil {
		return nil, err
	}
	b.Visible, b.Unfolded = false, true
	return b, nil
}
