package window

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Build compiles the context window of a run from its stored folds. It
// reads the visible blocks, the iterations shown in full and a bounded
// slice of recent state, so its cost follows the window, not the run.
// The result never exceeds opts.Config.Budget tokens in either output form:
// if the stored folds were made for a larger budget, the oldest parts of
// each partition are shown shorter, and Omitted says what.
func Build(ctx context.Context, j *journal.Store, fs *fold.Store, run journal.Run, opts Options) (*Context, error) {
	tok := opts.Tokenizer
	c := &Context{Budget: opts.Config.Budget, Tokenizer: tok.Name(), Native: max(0, opts.Native)}

	static := staticPartition(run, opts)
	if opts.Subtask != "" {
		static.Sections = append(static.Sections, Section{Name: "subtask", Source: "subtask", Content: opts.Subtask})
		return buildSubtask(ctx, j, fs, run, opts, c, static)
	}

	blocks, notes, err := fs.Window(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var long, short Partition
	long.Name, short.Name = LongTerm, ShortTerm
	// Outside a question to memory, the Short-term blocks made since the
	// summaries were last laid out (opts.SummariesLaidOut) stand in the
	// run's timeline, where their iterations were, rather than at
	// Short-term's end: a fold then changes the window from its oldest
	// iteration shown on, not from the summaries on, and the recalls made
	// before stay in the prefix a prompt cache keeps. They join
	// Short-term when a chapter or a cascade changes Long-term, which
	// breaks the prefix there anyway.
	laidOut := math.MaxInt
	if !opts.Focus {
		laidOut = opts.SummariesLaidOut
	}
	made := map[int]int{} // folded iteration -> when, for those in the timeline
	for _, b := range blocks {
		sec := Section{Name: fmt.Sprintf("L%d %d-%d", b.Level, b.First, b.Last), Source: "block:" + b.ID, Tokens: b.Tokens, Content: b.Content}
		switch {
		case b.Level >= fold.L3:
			long.Sections = append(long.Sections, sec)
		case b.Made > laidOut:
			sec.at, sec.made, sec.InTimeline = max(1, b.First), b.Made, true
			for n := b.First; n <= b.Last && n+opts.Native < b.Made; n++ {
				made[n] = b.Made
			}
			short.Sections = append(short.Sections, sec)
		default:
			short.Sections = append(short.Sections, sec)
		}
	}

	working := Partition{Name: Working}
	shown := notes
	if opts.Native > 0 {
		shown = olderThan(notes, run.Iterations-opts.Native+1)
	}
	for _, n := range shown {
		working.Sections = append(working.Sections, Section{
			Name: fmt.Sprintf("iteration %d", n.Number), Source: fmt.Sprintf("iteration:%d", n.Number), at: n.Number,
			Tokens: n.L0Tokens, Content: strings.TrimRight(n.L0, "\n"), Messages: n.L0Msgs, MessageTokens: n.MsgTokens,
		})
	}

	f, state, dynamic, err := c.fitEnds(ctx, j, fs, run, notes, stateAsOf(blocks, laidOut), &opts, &static)
	if err != nil {
		return nil, err
	}
	cfg := opts.Config
	long.Budget, short.Budget = cfg.LongTermBudget(), cfg.ShortTermBudget()
	retrieved := Partition{Name: Retrieved, Budget: cfg.RetrievedBudget()}
	c.focusRoom = cfg.Budget - fold.Margin(cfg.Budget) - f.cost(&static) - f.endsCost(&state, &dynamic) - f.newestCost(working)
	var recallOmitted []string
	if c.Focused = opts.Focus; c.Focused {
		// The current step asks memory a question: the answer is more
		// likely in recalled detail than in summaries or the turns before
		// the question. Retrieved is fitted first, to all but Static,
		// Dynamic and the current step; the summaries (down to their first
		// lines, the map of the run) and Working take what it leaves, up
		// to their shares.
		retrieved.Budget = max(retrieved.Budget, c.focusRoom)
		c.Recalls = f.fitRetrieved(&retrieved, opts.Recalled, &recallOmitted)
		shown = dropRecalled(&working, shown, opts.Recalled, c.Recalls)
		left := cfg.Budget - fold.Margin(cfg.Budget) - f.cost(&static) - f.endsCost(&state, &dynamic) - f.cost(&retrieved) - f.newestCost(working)
		long.Budget = max(0, min(long.Budget, left))
		f.fitBlocks(&long, &c.Omitted)
		short.Budget = max(0, min(short.Budget, left-f.cost(&long)))
		f.fitBlocks(&short, &c.Omitted)
	} else {
		f.fitBlocks(&long, &c.Omitted)
		// A block in the timeline is framed as a message of its own: the
		// share holds the block, as it would in Short-term, and the
		// framing comes on top, out of what Working is left (the
		// scheduler counts a block alike wherever the window shows it).
		for _, sec := range short.Sections {
			if sec.at > 0 {
				short.Budget += timelineFraming
			}
		}
		f.fitBlocks(&short, &c.Omitted)
		// The recalls go in the run's timeline (timeline.go), so that the
		// prefix a prompt cache reuses runs past them. Working keeps its
		// iterations: the recalls take what the others leave, at most their
		// reach and at least the room the scheduler holds for them
		// (fold.Config.RecallHold: more in a run that calls tools), less the
		// Working heading Build holds back below.
		c.timeline = true
		before := laidOutBefore(short)
		base := cfg.Budget - fold.Margin(cfg.Budget) - f.cost(&static) - f.cost(&long) - f.cost(&before) - cfg.DynamicBudget()
		acts, err := fs.Acts(ctx, run.ID, run.Iterations)
		if err != nil {
			return nil, err
		}
		var folded []fold.Size
		if len(made) > 0 {
			numbers := make([]int, 0, len(made))
			for n := range made {
				numbers = append(numbers, n)
			}
			slices.Sort(numbers)
			if folded, err = fs.SizesAt(ctx, run.ID, numbers); err != nil {
				return nil, err
			}
		}
		var inTimeline []Section
		for _, sec := range short.Sections {
			if sec.at > 0 {
				inTimeline = append(inTimeline, sec)
			}
		}
		room := f.newTimelineRoom(working, inTimeline, made, folded, cfg.RecallReach(), cfg.RecallHold(acts)-f.headingCost(Working), base, opts.Native, run.Iterations, cfg.DynamicBudget()-f.endsCost(&state, &dynamic))
		c.Recalls = f.fitTimeline(&retrieved, opts.Recalled, room, opts.LaidOut, run.Iterations, &recallOmitted)
	}
	used := 0
	for _, p := range []*Partition{&static, &long, &short, &state, &retrieved, &dynamic} {
		used += f.cost(p)
	}
	working.Budget = cfg.Budget - fold.Margin(cfg.Budget) - used - f.headingCost(Working)
	f.fitWorking(&working, shown, &c.Omitted)
	if !c.Focused && widening(opts.Recalled, c.Recalls) {
		// The newest iterations the caller shows itself (Native) are sent
		// with the memory file: what they take is not spare. A milestone
		// may have folded them, so they are read whatever their state.
		native := 0
		if opts.Native > 0 {
			numbers := make([]int, 0, opts.Native)
			for n := max(1, run.Iterations-opts.Native+1); n <= run.Iterations; n++ {
				numbers = append(numbers, n)
			}
			sizes, err := fs.SizesAt(ctx, run.ID, numbers)
			if err != nil {
				return nil, err
			}
			native = f.nativeCost(sizes)
		}
		spare := cfg.Budget - fold.Margin(cfg.Budget) - used - f.cost(&working) - native
		f.widen(&retrieved, opts.Recalled, c.Recalls, spare)
	}
	if c.Focused {
		// Hits that did not show in full may spill into what Working left.
		// Working is fitted first, so the spill never moves what comes
		// before Retrieved.
		spare := cfg.Budget - fold.Margin(cfg.Budget) - used - f.cost(&working)
		c.Recalls = f.spillRetrieved(&retrieved, opts.Recalled, c.Recalls, &recallOmitted, spare)
	}
	c.Omitted = append(c.Omitted, recallOmitted...)

	c.finish(&f, []Partition{static, long, short, state, working, retrieved, dynamic})
	return c, nil
}

// fitEnds fits the two ends of a window: Static, and the Dynamic partition
// built from the run's state, each to its share, the state as of asOf in
// a State partition of its own (fitDynamic). It settles the layout first:
// opts.Config becomes the configuration laid out for what Static needs
// (fold.Config.WithStatic).
func (c *Context) fitEnds(ctx context.Context, j *journal.Store, fs *fold.Store, run journal.Run, notes []*fold.Note, asOf int, opts *Options, static *Partition) (fitter, Partition, Partition, error) {
	f := fitter{tok: opts.Tokenizer, memo: newMemo()}
	c.StaticNeed, c.StaticShare = f.staticNeed(static), opts.Config.Shares.Static
	opts.Config = opts.Config.WithStatic(c.StaticNeed)
	c.Shares = opts.Config.Shares
	static.Budget = opts.Config.StaticBudget()
	shown := map[int]bool{}
	for _, n := range notes {
		shown[n.Number] = true
	}
	dynamic, err := buildDynamic(ctx, j, fs, run, func(n int) bool { return shown[n] }, *opts, asOf, &c.Omitted)
	if err != nil {
		return f, Partition{Name: State}, dynamic, err
	}
	state, dynamic := f.fitDynamic(dynamic, opts.Config, &c.Omitted)
	f.fitStatic(static)
	return f, state, dynamic, nil
}

// staticPartition holds the run's system prompt (or the one opts gives)
// and its task, uncut.
func staticPartition(run journal.Run, opts Options) Partition {
	system := opts.SystemPrompt
	if system == "" {
		system = run.SystemPrompt
	}
	static := Partition{Name: Static}
	if system != "" {
		static.Sections = append(static.Sections, Section{Name: "system", Source: "run.system_prompt", Content: system})
	}
	if run.Task != "" {
		static.Sections = append(static.Sections, Section{Name: "task", Source: "run.task", Content: run.Task})
	}
	if opts.SystemPrompt != "" {
		static.Sections[0].Source = "system_prompt_file"
	}
	return static
}

// EndsMeter measures a run's Static and Dynamic partitions as Build
// renders them, without reading the iterations Working shows: it is the
// scheduler's hook (fold.Scheduler.MeasureEnds), so that the pressure the
// scheduler folds on is the window that is rendered. It keeps the measure
// of the last system prompt and task, which seldom change, and is safe for
// concurrent use.
type EndsMeter struct {
	Journal   *journal.Store
	Fold      *fold.Store
	Tokenizer scoring.Tokenizer

	mu         sync.Mutex
	key        string
	need, cost int
}

// Measure measures run's ends, laid out with cfg.
func (m *EndsMeter) Measure(ctx context.Context, run journal.Run, cfg fold.Config) (fold.Ends, error) {
	from, err := m.Fold.WorkingFrom(ctx, run.ID)
	if err != nil {
		return fold.Ends{}, err
	}
	opts := Options{Config: cfg, Tokenizer: m.Tokenizer}
	need, cost := m.static(run, opts)
	opts.Config = opts.Config.WithStatic(need)
	f := fitter{tok: opts.Tokenizer, memo: newMemo()}
	var omitted []string
	laidOut, err := m.Fold.LayoutFold(ctx, run.ID)
	if err != nil {
		return fold.Ends{}, err
	}
	asOf, err := m.Fold.StableAsOf(ctx, run.ID, laidOut)
	if err != nil {
		return fold.Ends{}, err
	}
	dynamic, err := buildDynamic(ctx, m.Journal, m.Fold, run, func(n int) bool { return n >= from }, opts, asOf, &omitted)
	if err != nil {
		return fold.Ends{}, err
	}
	state, dynamic := f.fitDynamic(dynamic, opts.Config, &omitted)
	return fold.Ends{StaticNeed: need, Static: cost, Dynamic: f.endsCost(&state, &dynamic)}, nil
}

// static returns what run's Static partition needs uncut and what it
// costs once fitted, measuring it again only when its text changed.
func (m *EndsMeter) static(run journal.Run, opts Options) (need, cost int) {
	c := opts.Config
	key := fmt.Sprintf("%d %v %s\x00%s", c.Budget, c.Shares, run.SystemPrompt, run.Task)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == key {
		return m.need, m.cost
	}
	f := fitter{tok: opts.Tokenizer, memo: newMemo()}
	static := staticPartition(run, opts)
	need = f.staticNeed(&static)
	static.Budget = opts.Config.WithStatic(need).StaticBudget()
	f.fitStatic(&static)
	m.key, m.need, m.cost = key, need, f.cost(&static)
	return m.need, m.cost
}

// finish sets the window's partitions, as fitted, and renders them.
func (c *Context) finish(f *fitter, parts []Partition) {
	c.Partitions = parts
	for i := range c.Partitions {
		if c.Partitions[i].Sections == nil {
			c.Partitions[i].Sections = []Section{}
		}
		c.Partitions[i].Tokens = f.cost(&c.Partitions[i])
	}
	c.markdown, c.spans = renderMarkdown(c.Partitions, c.timeline)
	c.Messages = renderMessages(c.Partitions, c.timeline)
	c.Tokens = 0
	for _, p := range c.Partitions {
		c.Tokens += p.Tokens
	}
}

// FocusRoom is the most the Retrieved partition may take when the current
// step asks memory a question (Options.Focus): the budget less Static,
// Dynamic and the newest Working iteration.
func (c *Context) FocusRoom() int { return c.focusRoom }

// dropRecalled leaves out of Working, but for its newest iteration, the
// iterations a recall shown in the Retrieved partition covers, and returns
// the notes of those left.
func dropRecalled(working *Partition, notes []*fold.Note, recalls []Recalled, how map[string]string) []*fold.Note {
	if len(notes) < 2 {
		return notes
	}
	covered := func(n int) bool {
		for _, r := range recalls {
			if how[r.Source] != ShownOmitted && r.Covers[0] <= n && n <= r.Covers[1] {
				return true
			}
		}
		return false
	}
	var keepSecs []Section
	var keepNotes []*fold.Note
	for i, n := range notes {
		if i < len(notes)-1 && covered(n.Number) {
			continue
		}
		keepSecs, keepNotes = append(keepSecs, working.Sections[i]), append(keepNotes, n)
	}
	working.Sections = keepSecs
	return keepNotes
}

// nativeCost is what the newest iterations a caller shows itself take:
// in full, their outputs as they came (fold.Size.RawTokens), framed as
// Working's iterations are.
func (f *fitter) nativeCost(sizes []fold.Size) int {
	p := Partition{Name: Working}
	for _, n := range sizes {
		p.Sections = append(p.Sections, Section{Tokens: max(n.L0Tokens, n.RawTokens), MessageTokens: n.MsgTokens})
	}
	return f.cost(&p)
}

// olderThan returns the notes of iterations numbered below n.
func olderThan(notes []*fold.Note, n int) []*fold.Note {
	for i, note := range notes {
		if note.Number >= n {
			return notes[:i]
		}
	}
	return notes
}
