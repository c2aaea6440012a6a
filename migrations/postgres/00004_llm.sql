-- +goose Up
-- PostgreSQL version of ../00004_llm.sql: INTEGER is BIGINT, TEXT is
-- TEXT COLLATE "C".

-- LLM summaries: what each block cost, and whether its self-check ran.
-- llm_calls counts HTTP requests to the endpoint (retries included), and the
-- token counts are the ones the endpoint reported. A block the extractive
-- summarizer made after the model failed keeps what the failed calls cost.
ALTER TABLE blocks ADD COLUMN llm_calls             BIGINT NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN llm_prompt_tokens     BIGINT NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN llm_completion_tokens BIGINT NOT NULL DEFAULT 0;
-- self_check: '' (not asked), 'complete' (nothing missing), 'amended'
-- (missing facts were added once), or 'failed: <reason>' (the summary stands
-- unchecked).
ALTER TABLE blocks ADD COLUMN self_check            TEXT COLLATE "C" NOT NULL DEFAULT '';

-- Run totals of LLM use, kept as folds commit, so that `show` reads one row
-- instead of summing every block. failures counts blocks the extractive
-- summarizer made because the model failed; amended counts self-checks that
-- amended a summary. Calls made for a fold another process won the race to
-- are counted here too.
CREATE TABLE llm_usage (
    run_id            TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id),
    calls             BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    failures          BIGINT NOT NULL DEFAULT 0,
    amended           BIGINT NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE llm_usage;
ALTER TABLE blocks DROP COLUMN self_check;
ALTER TABLE blocks DROP COLUMN llm_completion_tokens;
ALTER TABLE blocks DROP COLUMN llm_prompt_tokens;
ALTER TABLE blocks DROP COLUMN llm_calls;
