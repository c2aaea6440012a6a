package fold

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// addUsage adds what a fold cost in LLM calls to the run's totals.
func addUsage(ctx context.Context, tx *sqlx.Tx, run string, u LLMUsage) error {
	if u.IsZero() {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO llm_usage (run_id, calls, prompt_tokens, completion_tokens, failures, amended)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET calls = llm_usage.calls + excluded.calls,
			prompt_tokens = llm_usage.prompt_tokens + excluded.prompt_tokens,
			completion_tokens = llm_usage.completion_tokens + excluded.completion_tokens,
			failures = llm_usage.failures + excluded.failures, amended = llm_usage.amended + excluded.amended`,
		run, u.Calls, u.PromptTokens, u.CompletionTokens, u.Failures, u.Amended)
	if err != nil {
		return fmt.Errorf("record LLM usage: %w", sqldb.Classify(err))
	}
	return nil
}

// LLMTotals returns a run's LLM use over all its folds: calls, the tokens
// the endpoint reported, blocks that fell back to Extractive, and summaries
// a self-check amended. A run never summarized by a model has zero totals.
func (s *Store) LLMTotals(ctx context.Context, run string) (LLMUsage, error) {
	var u LLMUsage
	err := s.db.Read.QueryRowxContext(ctx, `SELECT calls, prompt_tokens, completion_tokens, failures, amended
		FROM llm_usage WHERE run_id = ?`, run).Scan(&u.Calls, &u.PromptTokens, &u.CompletionTokens, &u.Failures, &u.Amended)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("read LLM usage of run %s: %w", run, sqldb.Classify(err))
	}
	return u, nil
}
