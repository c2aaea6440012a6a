-- +goose Up
-- PostgreSQL version of ../00009_raw_tokens.sql: INTEGER is BIGINT.

-- raw_tokens: an iteration in full with every tool output whole, as raw
-- history is counted (l0_tokens counts the rendering, long outputs cut).
-- 0 in notes made before this column: Totals then counts l0_tokens.
ALTER TABLE iteration_notes ADD COLUMN raw_tokens BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE iteration_notes DROP COLUMN raw_tokens;
