package fold

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// ErrUpgradeGone means a block stopped awaiting its summary while the
// model wrote it: a coarser fold absorbed it, or another process upgraded
// it first. Nothing was written but the calls' cost.
var ErrUpgradeGone = errors.New("the block no longer awaits a summary")

// Awaiting returns the visible blocks of a run that hold an extractive
// summary in wait of the model's (Defer), newest first: the newest show in
// most detail. Visible blocks are what the window shows, so they are few.
func (s *Store) Awaiting(ctx context.Context, run string) ([]*Block, error) {
	return s.queryBlocks(ctx, s.db.Read, `WHERE run_id = ? AND awaiting_llm = 1 AND visible = 1 ORDER BY last_iter DESC`, run)
}

// CountAwaiting counts the visible blocks of a run awaiting the model's
// summary.
func (s *Store) CountAwaiting(ctx context.Context, run string) (int, error) {
	var n int
	if err := s.db.Read.GetContext(ctx, &n, `SELECT COUNT(*) FROM blocks WHERE run_id = ? AND awaiting_llm = 1 AND visible = 1`, run); err != nil {
		return 0, fmt.Errorf("count blocks awaiting a summary: %w", sqldb.Classify(err))
	}
	return n, nil
}

// Upgrade asks the Summarizer for the summary of block b, which awaits it,
// and puts it in place of the extractive one in one transaction. The
// Summarizer's error is returned as it is, and the block keeps waiting:
// the caller decides whether to try again later (GiveUp if not).
//
// The upgraded block moves to the end of the blocks' order (its position,
// see BlocksAfter), so that the recall index, which follows that order,
// indexes its new text. Call it outside a scheduler step: a step lists the
// blocks past the position it started from as its folds.
func (f *Folder) Upgrade(ctx context.Context, run journal.Run, b *Block) (*Block, error) {
	o := FoldOptions{First: b.First, Last: b.Last, Level: b.Level, Trigger: b.Trigger}
	if b.Trigger == TriggerMilestone {
		o.Title = b.Title // the milestone named its chapter
	}
	var inside []*Block
	if b.Level >= L3 {
		var err error
		if inside, err = f.Store.queryBlocks(ctx, f.Store.db.Read, `WHERE run_id = ? AND parent = ? ORDER BY first_iter`, run.ID, b.ID); err != nil {
			return nil, err
		}
	}
	req, err := f.request(ctx, run, o, inside)
	if err != nil {
		return nil, err
	}
	sum, err := f.Summarizer.Summarize(ctx, req)
	if err != nil {
		if !sum.Usage.IsZero() && ctx.Err() == nil {
			// What the failed calls cost stays counted.
			err = errors.Join(err, f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error { return addUsage(ctx, tx, run.ID, sum.Usage) }))
		}
		return nil, err
	}
	up := *b
	up.Title, up.Content, up.Outcome, up.Keywords, up.Entities = sum.Title, sum.Content, sum.Outcome, sum.Keywords, sum.Entities
	up.Summarizer, up.SelfCheck, up.AwaitingLLM = sum.Summarizer, sum.SelfCheck, false
	up.LLM = up.LLM.Add(LLMUsage{Calls: sum.Usage.Calls, PromptTokens: sum.Usage.PromptTokens, CompletionTokens: sum.Usage.CompletionTokens})
	up.Tokens = f.Tokenizer.Count(up.Content)
	err = f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		if err := addUsage(ctx, tx, run.ID, sum.Usage); err != nil {
			return err
		}
		r := fromBlock(&up)
		res, err := tx.ExecContext(ctx, `UPDATE blocks SET title = ?, content = ?, outcome = ?, keywords = ?, entities = ?,
			summarizer = ?, self_check = ?, tokens = ?, llm_calls = ?, llm_prompt_tokens = ?, llm_completion_tokens = ?, awaiting_llm = 0,
			rowid = `+f.Store.nextBlockRow()+`
			WHERE run_id = ? AND id = ? AND awaiting_llm = 1 AND visible = 1`,
			r.Title, r.Content, r.Outcome, r.Keywords, r.Entities, r.Summarizer, r.SelfCheck, r.Tokens, r.LLMCalls, r.LLMPrompt, r.LLMCompletion, run.ID, b.ID)
		if err != nil {
			return fmt.Errorf("upgrade block %s: %w", b.ID, sqldb.Classify(err))
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return ErrUpgradeGone
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "upgrade", Block: b.ID,
			Detail: fmt.Sprintf("L%d iterations %d-%d: %s (%s)", b.Level, b.First, b.Last, up.Title, up.Summarizer)})
	})
	if errors.Is(err, ErrUpgradeGone) {
		// The calls were made and paid for: count them.
		if uerr := f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error { return addUsage(ctx, tx, run.ID, sum.Usage) }); uerr != nil {
			return nil, errors.Join(err, uerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return &up, nil
}

// GiveUp stops waiting for the model's summary of block b: its extractive
// summary stays, named as the fallback it now is (FallbackName(reason)).
// It is for failures that asking again would repeat (a refused key, an
// answer that is not a summary), not for a slow or absent endpoint.
func (f *Folder) GiveUp(ctx context.Context, run journal.Run, b *Block, reason error) error {
	return f.Store.update(ctx, run.ID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE blocks SET awaiting_llm = 0, summarizer = ? WHERE run_id = ? AND id = ? AND awaiting_llm = 1`,
			FallbackName(reason), run.ID, b.ID)
		if err != nil {
			return fmt.Errorf("block %s: %w", b.ID, sqldb.Classify(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := addUsage(ctx, tx, run.ID, LLMUsage{Failures: 1}); err != nil {
			return err
		}
		return logAction(ctx, tx, run.ID, LogEntry{Iteration: run.Iterations, Action: "upgrade:given-up", Block: b.ID, Detail: reason.Error()})
	})
}
