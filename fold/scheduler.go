package fold

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// noteBatch is how many iterations the scheduler reads from the journal at
// once when it catches up on a long import.
const noteBatch = 256

// Scheduler decides when to fold. Step runs after each import; its work per
// new iteration is bounded by the window (visible blocks and the iterations
// shown in full), never by the run's length.
type Scheduler struct {
	*Folder

	// OnProgress, if set, is called now and then while a step notes a long
	// import, with the iterations done and the total to do.
	OnProgress func(done, total int)

	// MeasureEnds, if set, measures a run's Static and Dynamic partitions
	// as the window renders them, so that the pressure the scheduler sees
	// is the window that is rendered. Without it Static is counted from
	// the run (up to the static cap) and Dynamic's share is reserved.
	MeasureEnds func(ctx context.Context, run journal.Run) (Ends, error)

	// staticKey and staticN remember the token count of the Static
	// partition's text; a Scheduler is not safe for concurrent use.
	staticKey string
	staticN   int
	// measured is the window's usage as the step's last decision left it,
	// nil before one: a step's end reports it instead of measuring again.
	measured *tally
}

// FoldEvent is a fold the scheduler made.
type FoldEvent struct {
	Block   string `json:"block" db:"id"`
	Level   int    `json:"level" db:"level"`
	First   int    `json:"first" db:"first_iter"`
	Last    int    `json:"last" db:"last_iter"`
	Trigger string `json:"trigger" db:"trigger"`
	// At is the iteration after which the fold was made.
	At int `json:"at" db:"created_iter"`
	// Usage is the window's usage when the scheduler made the fold (see
	// Block.Usage).
	Usage float64 `json:"usage" db:"made_at_usage"`
}

// StepResult says what a Step did.
type StepResult struct {
	Noted int         `json:"noted"`
	Folds []FoldEvent `json:"folds"`
	// Usage is the window's size over the budget after the step.
	Usage float64 `json:"usage"`
}

// Step brings a run's folding up to date: it notes each new iteration and,
// after each, applies the triggers in order: milestone, interval, pressure,
// then the cascades. A bulk import is thus folded as it would have been
// live, one iteration at a time.
func (s *Scheduler) Step(ctx context.Context, runID string) (StepResult, error) {
	var res StepResult
	s.measured = nil
	run, err := s.Journal.Run(ctx, runID)
	if err != nil {
		return res, err
	}
	st, err := loadState(ctx, s.Store.db.Read, runID)
	if err != nil {
		return res, err
	}
	mark, err := s.Store.lastBlockPos(ctx)
	if err != nil {
		return res, err
	}
	// An earlier step noted the newest iteration and was cut before it
	// finished deciding after it: decide now, as of that iteration, before
	// noting more changes what the decision sees (the run's term counts,
	// its newest steps). Deciding again what was partly decided makes only
	// the folds still due. With nothing to note, the decision waits for
	// the step that has: decided also lags noted while another process is
	// still deciding, and a step that only reads the state (after a
	// bookmark, a manual fold) must not decide the same iteration beside it.
	repaired := st.Decided < st.Noted && (run.Iterations > st.Noted || run.LastSeq > st.NotedSeq)
	if repaired {
		if err := s.decideAt(ctx, &st, run, st.Noted); err != nil {
			return res, err
		}
	}
	from := st.Noted + 1
	if st.Noted > 0 && run.LastSeq > st.NotedSeq {
		from = st.Noted // the newest noted iteration may have grown
	}
	total := run.Iterations
	for a := from; a <= total; a += noteBatch {
		z := min(total, a+noteBatch-1)
		its, err := s.Journal.Iterations(ctx, runID, a, z, journal.ReadOptions{})
		if err != nil {
			return res, err
		}
		for _, it := range its {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if it.Number == st.Noted && it.LastSeq == st.NotedSeq {
				continue // read again in case it grew; it did not
			}
			if err := s.note(ctx, &st, it, it.LastSeq); errors.Is(err, errAhead) {
				return s.finish(ctx, run, res, mark, false)
			} else if err != nil {
				return res, err
			}
			res.Noted++
			if s.OnProgress != nil && res.Noted%64 == 0 {
				s.OnProgress(it.Number-from+1, total-from+1)
			}
			// Decide as of this iteration, so that a bulk import folds as
			// the same run would have live. Its start stands for "now": its
			// end can still move when a late event joins it.
			run.Iterations, run.EndedAt = it.Number, it.Start
			if err := s.decide(ctx, &st, run); err != nil {
				return res, err
			}
		}
	}
	if st.PendingMilestone != "" && st.Noted > 0 {
		if err := s.decide(ctx, &st, run); err != nil {
			return res, err
		}
	}
	return s.finish(ctx, run, res, mark, res.Noted > 0 || repaired)
}

// decideAt decides as of iteration n of run, the newest noted, as the
// step that noted it would have.
func (s *Scheduler) decideAt(ctx context.Context, st *state, run journal.Run, n int) error {
	its, err := s.Journal.Iterations(ctx, run.ID, n, n, journal.ReadOptions{})
	if err != nil {
		return err
	}
	if len(its) == 0 {
		return fmt.Errorf("decide after iteration %d of run %s: the iteration is not in the journal", n, run.ID)
	}
	run.Iterations, run.EndedAt = n, its[0].Start
	return s.decide(ctx, st, run)
}

// errAhead is note's signal that another process has noted further.
var errAhead = errors.New("another scheduler is ahead")

// finish refreshes importance and measures the window at the end of a
// step, and lists every block the step made: those past position mark,
// including the L2 blocks a chapter wraps loose iterations in, which the
// triggers do not report one by one. With decided, the step made every
// decision after the iterations it noted (or the decision an earlier step
// was cut before making), and says so in the state.
func (s *Scheduler) finish(ctx context.Context, run journal.Run, res StepResult, mark int64, decided bool) (StepResult, error) {
	made, err := s.Store.madeSince(ctx, run.ID, mark)
	if err != nil {
		return res, err
	}
	res.Folds = made
	if res.Noted > 0 || decided {
		if err := s.refreshImportance(ctx, run, decided); err != nil {
			return res, err
		}
	}
	if s.measured != nil {
		res.Usage = s.measured.ratio()
		return res, nil
	}
	u, err := s.usage(ctx, run)
	if err != nil {
		return res, err
	}
	res.Usage = u.ratio()
	return res, nil
}

// refreshImportance recomputes the importance of the visible blocks as the
// run advances (recency decays with every iteration), writing only those
// whose rounded score moved. Visible blocks are bounded by the window.
// With decided, the same transaction records that every decision up to
// the run's newest noted iteration was made, unless another process has
// noted further since.
func (s *Scheduler) refreshImportance(ctx context.Context, run journal.Run, decided bool) error {
	var rows []struct {
		ID         string  `db:"id"`
		Last       int     `db:"last_iter"`
		Access     int     `db:"access_count"`
		Errors     int     `db:"error_count"`
		Changes    int     `db:"change_count"`
		Importance float64 `db:"importance"`
	}
	if err := s.Store.db.Read.SelectContext(ctx, &rows, `SELECT id, last_iter, access_count, error_count, change_count, importance
		FROM blocks INDEXED BY blocks_visible WHERE run_id = ? AND visible = 1`, run.ID); err != nil {
		return fmt.Errorf("read block importance: %w", sqldb.Classify(err))
	}
	type change struct {
		id string
		v  float64
	}
	var moved []change
	for _, r := range rows {
		if v := importance(s.Config, r.Last, r.Access, r.Errors, r.Changes, run.Iterations); v != r.Importance {
			moved = append(moved, change{r.ID, v})
		}
	}
	if len(moved) == 0 && !decided {
		return nil
	}
	return s.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		if decided {
			if _, err := tx.ExecContext(ctx, `UPDATE fold_state SET decided = noted WHERE run_id = ? AND noted = ?`, run.ID, run.Iterations); err != nil {
				return fmt.Errorf("record the step's decisions: %w", sqldb.Classify(err))
			}
		}
		for _, m := range moved {
			if _, err := tx.ExecContext(ctx, `UPDATE blocks SET importance = ? WHERE run_id = ? AND id = ?`, m.v, run.ID, m.id); err != nil {
				return fmt.Errorf("update importance of %s: %w", m.id, sqldb.Classify(err))
			}
		}
		return nil
	})
}

// note makes and stores the note of one iteration, with the state that
// goes with it, in one transaction. The state is read again inside the
// transaction (which holds the write lock), so that another process's step
// or milestone declaration is neither overwritten nor noted twice.
func (s *Scheduler) note(ctx context.Context, st *state, it *journal.Iteration, lastSeq int64) error {
	return s.Store.update(ctx, it.Run, func(tx *sqlx.Tx) error {
		fresh, err := loadState(ctx, tx, it.Run)
		if err != nil {
			return err
		}
		toolsOK := map[string]bool{}
		var tools []string
		_ = json.Unmarshal([]byte(fresh.ToolsOK), &tools)
		for _, t := range tools {
			toolsOK[t] = true
		}
		if it.Number < fresh.Noted || it.Number == fresh.Noted && it.LastSeq <= fresh.NotedSeq {
			// Another process noted this iteration (and decided after it)
			// since this step read the state: it is ahead, so leave the
			// rest of the run to it.
			*st = fresh
			return errAhead
		}
		renote := it.Number == fresh.Noted
		n := makeNote(s.Tokenizer, it, toolsOK, s.Config.OutputCap())
		if renote {
			// Keep the block that covers it, and count its terms only once.
			var prev struct {
				Block   *string `db:"block"`
				Protect string  `db:"protect"`
			}
			err := tx.GetContext(ctx, &prev, `SELECT block, protect FROM iteration_notes WHERE run_id = ? AND number = ?`, it.Run, it.Number)
			switch {
			case err == nil:
				if prev.Block != nil {
					n.Block, n.L0, n.L0Msgs = *prev.Block, "", nil
				}
				// toolsOK already holds the tools this iteration first got
				// right when it was noted before, so makeNote cannot see those
				// first successes again; keep the protection they earned.
				if n.Protect == "" && prev.Protect != "" {
					n.Protect = prev.Protect
				}
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("read note of iteration %d: %w", it.Number, sqldb.Classify(err))
			}
		} else if err := addTerms(ctx, tx, it.Run, n.Terms); err != nil {
			return err
		}
		if err := putNote(ctx, tx, n); err != nil {
			return err
		}
		effects, err := recordHistory(ctx, tx, n, renote)
		if err != nil {
			return err
		}
		if err := touchEntities(ctx, tx, n, effects); err != nil {
			return err
		}
		tools = tools[:0]
		for t := range toolsOK {
			tools = append(tools, t)
		}
		slices.Sort(tools)
		b, _ := json.Marshal(tools)
		fresh.ToolsOK = string(b)
		if it.Number >= fresh.Noted {
			// Every decision before this iteration was made (Step decides
			// after each note, and first after one a cut step left): this
			// one's is still to make, even when it is noted again.
			fresh.Noted, fresh.NotedSeq, fresh.Decided = it.Number, lastSeq, it.Number-1
		}
		if n.Milestone != "" && !renote {
			fresh.PendingMilestone, fresh.MilestoneDeclared = n.Milestone, false
		}
		if err := saveState(ctx, tx, fresh); err != nil {
			return err
		}
		*st = fresh
		return nil
	})
}

// mutateState changes the scheduler state in one transaction: it reads the
// stored state again, applies change, writes it, and hands it back in st.
func (s *Scheduler) mutateState(ctx context.Context, st *state, change func(*state)) error {
	return s.Store.update(ctx, st.Run, func(tx *sqlx.Tx) error {
		return mutateStateTx(ctx, tx, st, change)
	})
}

func mutateStateTx(ctx context.Context, tx *sqlx.Tx, st *state, change func(*state)) error {
	fresh, err := loadState(ctx, tx, st.Run)
	if err != nil {
		return err
	}
	change(&fresh)
	if err := saveState(ctx, tx, fresh); err != nil {
		return err
	}
	*st = fresh
	return nil
}

// touchEntities records the last action the iteration took on each
// target: its calls', then what its effects (see recordHistory) made of
// each entity ("moved to a.bak", "created").
func touchEntities(ctx context.Context, tx *sqlx.Tx, n *Note, effects []scoring.EntityChange) error {
	upsert := func(entity, action string) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO entity_state (run_id, entity, iteration, action) VALUES (?, ?, ?, ?)
			ON CONFLICT (run_id, entity) DO UPDATE SET iteration = excluded.iteration, action = excluded.action`,
			n.Run, entity, n.Number, action)
		if err != nil {
			return fmt.Errorf("record entity state: %w", sqldb.Classify(err))
		}
		return nil
	}
	for _, c := range n.Calls {
		// A shell command is not a file or entity: what it changed is
		// recorded from its state changes below.
		if entity, action, ok := callEntity(c); ok {
			if err := upsert(entity, action); err != nil {
				return err
			}
		}
	}
	for _, e := range effects {
		if err := upsert(e.Entity, e.Describe()); err != nil {
			return err
		}
	}
	return nil
}
