package fold

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// Ends are the parts of a run's window the scheduler does not fold, in
// tokens as the window renders them: Static (after the static cap cut it)
// and Dynamic, with what Static needs uncut, which sets the layout
// (Config.WithStatic).
type Ends struct {
	StaticNeed, Static, Dynamic int
}

// Rendering overheads the scheduler adds to the stored token counts, as
// the window renders them: a partition's heading and blank line, the blank
// line after each block or iteration, and the framing of the messages
// form around Working.
const (
	headingTokens = 6
	sectionTokens = 1
	framingTokens = 16
)

// tally is the window's size if nothing more were folded, by partition,
// as the window would render it. Once the run has outgrown its window (it
// has blocks), room is held for recalls (Config.RecallHold: the Retrieved
// partition's share, or in a run that calls tools half their reach), which
// are made after the scheduler runs: a recall then takes room held for it
// rather than pushing Working's oldest iterations out of the window, which
// would change the window's prefix between folds. Beyond that room, the
// recalls take what Working's iterations leave (window.Build). Before the
// run has folded, everything is in view and nothing is held.
type tally struct {
	static, dynamic, longTerm, shortTerm, working int
	// cfg is the configuration laid out for Static's need.
	cfg Config
	// acts says the run's recent steps call tools (Store.Acts); read once
	// the run has folded, since only then is room held.
	acts bool
}

func (t tally) total() int {
	n := t.static + t.dynamic + t.longTerm + t.shortTerm + t.working
	if t.folded() {
		n += t.cfg.RecallHold(t.acts)
	}
	return n
}

// ratio is the usage the thresholds compare: the window over the room.
func (t tally) ratio() float64 { return float64(t.total()) / float64(t.cfg.Room()) }

// folded says whether the run's window holds any block: whether its raw
// history has ever outgrown the window.
func (t tally) folded() bool { return t.longTerm+t.shortTerm > 0 }

// usage measures the window of a run from stored token counts: the visible
// blocks and the iterations shown in full (in the larger of their two
// forms), and the ends as the window renders them.
func (s *Scheduler) usage(ctx context.Context, run journal.Run) (tally, error) {
	var t tally
	ends, err := s.ends(ctx, run)
	if err != nil {
		return t, err
	}
	t.static, t.dynamic, t.cfg = ends.Static, ends.Dynamic, s.Config.WithStatic(ends.StaticNeed)
	var long, short, work, nLong, nShort, nWork int
	err = s.Store.db.Read.QueryRowxContext(ctx, `SELECT
		COALESCE((SELECT SUM(tokens) FROM blocks WHERE run_id = ?1 AND visible = 1 AND level >= 3), 0),
		(SELECT COUNT(*) FROM blocks WHERE run_id = ?1 AND visible = 1 AND level >= 3),
		COALESCE((SELECT SUM(tokens) FROM blocks WHERE run_id = ?1 AND visible = 1 AND level <= 2), 0),
		(SELECT COUNT(*) FROM blocks WHERE run_id = ?1 AND visible = 1 AND level <= 2),
		COALESCE((SELECT SUM(CASE WHEN l0_tokens > msg_tokens THEN l0_tokens ELSE msg_tokens END) FROM iteration_notes INDEXED BY iteration_notes_l0 WHERE run_id = ?1 AND block IS NULL), 0),
		(SELECT COUNT(*) FROM iteration_notes INDEXED BY iteration_notes_l0 WHERE run_id = ?1 AND block IS NULL)`, run.ID).
		Scan(&long, &nLong, &short, &nShort, &work, &nWork)
	if err != nil {
		return t, fmt.Errorf("measure window: %w", sqldb.Classify(err))
	}
	part := func(tokens, n, extra int) int {
		if n == 0 {
			return 0
		}
		return headingTokens + tokens + n*sectionTokens + extra
	}
	t.longTerm, t.shortTerm, t.working = part(long, nLong, 0), part(short, nShort, 0), part(work, nWork, framingTokens)
	if t.folded() {
		// Only a folded run holds room for recalls (total).
		if t.acts, err = s.Store.Acts(ctx, run.ID, run.Iterations); err != nil {
			return t, err
		}
	}
	return t, nil
}

// ends measures Static and Dynamic with the MeasureEnds hook, or, without
// one, counts Static from the run and reserves Dynamic's share.
func (s *Scheduler) ends(ctx context.Context, run journal.Run) (Ends, error) {
	if s.MeasureEnds != nil {
		return s.MeasureEnds(ctx, run)
	}
	need := s.staticTokens(run)
	c := s.Config.WithStatic(need)
	return Ends{StaticNeed: need, Static: min(need, c.StaticBudget()), Dynamic: c.DynamicBudget()}, nil
}

// decide applies the triggers after iteration run.Iterations was noted.
// The blocks it makes are reported by Step, which lists every block made
// since it began (finish).
func (s *Scheduler) decide(ctx context.Context, st *state, run journal.Run) error {
	now := run.Iterations

	u, err := s.usage(ctx, run)
	if err != nil {
		return err
	}
	c := s.Config
	// Milestone: everything since the previous milestone becomes a chapter.
	// The chapter and the state that closes it commit together. While the
	// run's whole history still fits the window, the chapter is closed in
	// the state only: folding it would take detail out of a window that has
	// room for it. Its iterations fold later, under pressure, like others.
	// A milestone a caller declared folds at once: the caller asked for it.
	if st.PendingMilestone != "" {
		title := st.PendingMilestone
		first := min(st.ChapterStart, now)
		closeChapter := func(fresh *state) {
			fresh.ChapterStart, fresh.MilestoneTitle, fresh.MilestoneIter, fresh.LastInterval = now+1, title, now, now
			if fresh.PendingMilestone == title {
				fresh.PendingMilestone, fresh.MilestoneDeclared = "", false
			}
		}
		if !st.MilestoneDeclared && !u.folded() && u.ratio() <= c.PressureHigh {
			if err := s.mutateState(ctx, st, closeChapter); err != nil {
				return err
			}
		} else {
			_, err := s.Fold(ctx, run, FoldOptions{First: first, Last: now, Level: L3, Trigger: TriggerMilestone, Title: title, Usage: u.ratio(),
				After: func(tx *sqlx.Tx) error { return mutateStateTx(ctx, tx, st, closeChapter) }})
			if errors.Is(err, ErrFoldRace) {
				s.measured = nil // another process folded: the step's end measures again
				return nil
			}
			if err != nil {
				return fmt.Errorf("milestone fold of iterations %d-%d: %w", first, now, err)
			}
			if u, err = s.usage(ctx, run); err != nil {
				return err
			}
		}
	}

	// apply measures the window again when a trigger folded something; most
	// iterations fold nothing and measure it once.
	apply := func(bs []*Block, err error) error {
		if errors.Is(err, ErrFoldRace) {
			err = nil // another process folded first; its blocks stand
		}
		if err != nil {
			return err
		}
		if len(bs) > 0 {
			u, err = s.usage(ctx, run)
		}
		return err
	}
	target := int(c.PressureLow * float64(u.cfg.Room()))
	// Interval: more often as the window fills, fold the oldest iterations
	// past the newest KeepRecent down to PressureLow. It never folds while
	// the run's whole history still fits (no block yet: folding then would
	// only empty the window), nor below PressureLow.
	every := c.IntervalCalm
	switch r := u.ratio(); {
	case r > c.PressureHigh:
		every = c.IntervalPressed
	case r >= c.IntervalBusyAt:
		every = c.IntervalBusy
	}
	if now-st.LastInterval >= every {
		// The interval is marked done in the transaction of each block it
		// makes, so that a step cut after its fold does not fold again
		// when the next step decides (Step); with no block, on its own.
		// A step cut between two of its blocks leaves the rest to the
		// pressure trigger.
		done := func(fresh *state) { fresh.LastInterval = now }
		marked := false
		mark := func(tx *sqlx.Tx) error {
			marked = true
			return mutateStateTx(ctx, tx, st, done)
		}
		if excess := u.total() - target; u.folded() && excess > 0 {
			bs, err := s.foldOldest(ctx, run, now-c.KeepRecent, L2, TriggerInterval, excess, u.ratio(), mark)
			if err := apply(bs, err); err != nil {
				return err
			}
		}
		if !marked {
			if err := s.mutateState(ctx, st, done); err != nil {
				return err
			}
		}
	}

	// Pressure, with hysteresis: over High fold down to Low. Over Urgent,
	// fold at once and coarsest first: cascades before more L2 blocks.
	if u.ratio() > c.PressureHigh {
		level, keep := L1, c.KeepRecent
		if u.ratio() > c.PressureUrgent {
			level, keep = L2, 1
			bs, err := s.cascade(ctx, run, st.ChapterStart, u)
			if err := apply(bs, err); err != nil {
				return err
			}
		}
		if excess := u.total() - target; excess > 0 {
			bs, err := s.foldOldest(ctx, run, now-keep, level, TriggerPressure, excess, u.ratio(), nil)
			if err := apply(bs, err); err != nil {
				return err
			}
		}
		// When the newest KeepRecent iterations alone hold the window over
		// High (a small budget, large outputs), the fold above finds nothing
		// to fold. Fold past KeepRecent then, keeping the newest iteration,
		// as the pressure rule asks (fold until usage <= Low). keep > 1 means
		// the milder, non-urgent case.
		if keep > 1 && u.ratio() > c.PressureHigh {
			bs, err := s.foldOldest(ctx, run, now-1, level, TriggerPressure, u.total()-target, u.ratio(), nil)
			if err := apply(bs, err); err != nil {
				return err
			}
		}
	}

	if u.shortTerm > u.cfg.ShortTermBudget() || u.longTerm > u.cfg.LongTermBudget() {
		bs, err := s.cascade(ctx, run, st.ChapterStart, u)
		if err := apply(bs, err); err != nil {
			return err
		}
	}
	s.measured = &u
	return nil
}

// staticTokens counts the run's system prompt and task, remembering the
// count for as long as they stay the same.
func (s *Scheduler) staticTokens(run journal.Run) int {
	key := run.SystemPrompt + "\x00" + run.Task
	if s.staticKey != key {
		s.staticKey, s.staticN = key, s.Tokenizer.Count(run.SystemPrompt)+s.Tokenizer.Count(run.Task)
	}
	return s.staticN
}

// foldOldest folds the oldest iterations shown in full, up to iteration
// upTo, into blocks of at most Chunk iterations at a level. With excess >= 0
// it stops once the folds have saved that many tokens; with excess < 0 it
// folds everything up to upTo. after, if set, runs in each block's
// transaction (FoldOptions.After).
func (s *Scheduler) foldOldest(ctx context.Context, run journal.Run, upTo, level int, trigger string, excess int, usage float64, after func(*sqlx.Tx) error) ([]*Block, error) {
	if upTo < 1 {
		return nil, nil
	}
	var rows []struct {
		Number int `db:"number"`
		Tokens int `db:"l0_tokens"`
	}
	if err := s.Store.db.Read.SelectContext(ctx, &rows, `SELECT number, l0_tokens FROM iteration_notes
		INDEXED BY iteration_notes_l0 WHERE run_id = ? AND block IS NULL AND number <= ? ORDER BY number`, run.ID, upTo); err != nil {
		return nil, fmt.Errorf("find iterations to fold: %w", sqldb.Classify(err))
	}
	var out []*Block
	saved := 0
	for i := 0; i < len(rows) && (excess < 0 || saved < excess); {
		// Plan the fewest chunks whose full size covers what is left to
		// save: a chunk saves at most its own tokens, so folding one at a
		// time could not stop before the last of them. They are summarized
		// together, and the next batch, if any, is planned from what they
		// actually saved.
		var batch []FoldOptions
		var sizes []int
		for planned := 0; i < len(rows) && (excess < 0 || planned < excess-saved); {
			// A chunk is a run of consecutive iterations, at most Chunk long,
			// and no longer than what is left to save needs: folding more
			// would only empty the window.
			j, tokens := i, 0
			for j < len(rows) && j-i < s.Config.Chunk && rows[j].Number == rows[i].Number+(j-i) &&
				(excess < 0 || tokens < excess-saved-planned) {
				tokens += rows[j].Tokens
				j++
			}
			batch = append(batch, FoldOptions{First: rows[i].Number, Last: rows[j-1].Number, Level: level, Trigger: trigger, Usage: usage, After: after})
			sizes = append(sizes, tokens)
			planned += tokens
			i = j
		}
		bs, err := s.foldAll(ctx, run, batch)
		out = append(out, bs...)
		if err != nil {
			return out, err
		}
		for k, b := range bs {
			saved += sizes[k] - b.Tokens
		}
	}
	return out, nil
}

// cascade merges the oldest Short-term blocks into an L3 chapter while
// Short-term is over its share, then the oldest Long-term blocks into an L4
// phase while Long-term is. Each merge brings its partition down to half
// its share, so cascades do not fire on every iteration.
//
// Long-term merges never mix blocks that end before chapterStart (the first
// iteration after the latest milestone) with newer ones, so that a phase
// never straddles the chapter the next milestone will make.
func (s *Scheduler) cascade(ctx context.Context, run journal.Run, chapterStart int, u tally) ([]*Block, error) {
	layout := u.cfg
	var out []*Block
	for _, p := range []struct {
		minLevel, maxLevel, to int
		budget                 int
	}{
		{L1, L2, L3, layout.ShortTermBudget()},
		{L3, L4, L4, layout.LongTermBudget()},
	} {
		for guard := 0; guard < 64; guard++ {
			blocks, err := s.Store.queryBlocks(ctx, s.Store.db.Read,
				`WHERE run_id = ? AND visible = 1 AND level BETWEEN ? AND ? ORDER BY first_iter`, run.ID, p.minLevel, p.maxLevel)
			if err != nil {
				return out, err
			}
			total := 0
			for _, b := range blocks {
				total += b.Tokens
			}
			if total <= p.budget || len(blocks) == 0 {
				break
			}
			if p.to == L4 {
				// Never merge across the chapter start: take the closed
				// chapters while they can still shrink, else the blocks of
				// the chapter being written.
				closed := endingBefore(blocks, chapterStart)
				if len(closed) > 1 || len(closed) == 1 && closed[0].Level < L4 {
					blocks = closed
				} else {
					blocks = blocks[len(closed):]
				}
				if len(blocks) == 0 {
					break
				}
			}
			group := oldestGroup(blocks, total-p.budget/2)
			if len(group) == 1 && group[0].Level == p.to {
				break // a lone block at the target level cannot shrink further
			}
			b, err := s.Fold(ctx, run, FoldOptions{First: group[0].First, Last: group[len(group)-1].Last, Level: p.to, Trigger: TriggerCascade, Usage: u.ratio()})
			if err != nil {
				return out, err
			}
			out = append(out, b)
			before := 0
			for _, g := range group {
				before += g.Tokens
			}
			if b.Tokens >= before {
				break // merging did not save anything; stop rather than loop
			}
		}
	}
	return out, nil
}

// endingBefore returns the leading blocks that end before iteration n.
func endingBefore(blocks []*Block, n int) []*Block {
	i := 0
	for i < len(blocks) && blocks[i].Last < n {
		i++
	}
	return blocks[:i]
}

// oldestGroup returns the oldest blocks, consecutive in iterations, whose
// tokens add up to at least need (or as many as are consecutive).
func oldestGroup(blocks []*Block, need int) []*Block {
	group := []*Block{blocks[0]}
	sum := blocks[0].Tokens
	for i := 1; i < len(blocks) && sum < need; i++ {
		if blocks[i].First != blocks[i-1].Last+1 {
			break
		}
		group = append(group, blocks[i])
		sum += blocks[i].Tokens
	}
	return group
}
