-- +goose Up
-- PostgreSQL version of ../00013_fold_usage.sql: REAL is DOUBLE PRECISION,
-- INTEGER is BIGINT.

-- made_at_usage: the window's usage (its tokens if nothing more were
-- folded, over the room the budget leaves) when the scheduler made the
-- block, so that `show` and `simulate` can say which folds came while the
-- window still had room, and why. 0 for blocks folded by hand and for
-- blocks made before this column.
ALTER TABLE blocks ADD COLUMN made_at_usage DOUBLE PRECISION NOT NULL DEFAULT 0;

-- milestone_declared: the pending milestone was declared by a caller
-- (`delta memory milestone`, the API, MCP), not read in a thought. A
-- declared milestone folds its chapter at once; one read in a thought
-- waits while the run's whole history still fits the window.
ALTER TABLE fold_state ADD COLUMN milestone_declared BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE fold_state DROP COLUMN milestone_declared;
ALTER TABLE blocks DROP COLUMN made_at_usage;
