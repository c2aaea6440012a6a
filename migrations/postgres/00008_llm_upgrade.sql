-- +goose Up
-- PostgreSQL version of ../00008_llm_upgrade.sql: INTEGER is BIGINT, TEXT
-- is TEXT COLLATE "C".

-- A block folded while the model is to summarize it is stored at once with
-- its extractive summary and awaiting_llm = 1; the model's summary replaces
-- it later (in the same sync if time allows, else in a later one), which
-- sets it back to 0. The agent never waits for the model.
ALTER TABLE blocks ADD COLUMN awaiting_llm BIGINT NOT NULL DEFAULT 0;
CREATE INDEX blocks_awaiting ON blocks (run_id, last_iter) WHERE awaiting_llm = 1 AND visible = 1;

-- The LLM circuit breaker, one row per endpoint, shared by every process
-- of the database: after repeated timeouts, transport failures, 429s or
-- 5xx answers, no call is made until open_until (journal-free wall time,
-- RFC 3339). failures counts the failures in a row; a success clears it.
CREATE TABLE llm_breaker (
    endpoint   TEXT COLLATE "C" PRIMARY KEY,
    failures   BIGINT           NOT NULL DEFAULT 0,
    open_until TEXT COLLATE "C" NOT NULL DEFAULT '',
    reason     TEXT COLLATE "C" NOT NULL DEFAULT ''
);

-- +goose Down
DROP TABLE llm_breaker;
DROP INDEX blocks_awaiting;
ALTER TABLE blocks DROP COLUMN awaiting_llm;
