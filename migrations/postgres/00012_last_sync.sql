-- +goose Up
-- PostgreSQL version of ../00012_last_sync.sql: INTEGER is BIGINT, TEXT is
-- TEXT COLLATE "C".

-- last_sync: how the newest memory file a sync wrote for a run began like
-- the one before it, which is what a provider's prompt cache reuses:
-- kept_bytes of prev_bytes (the previous file's length), the new file's
-- tokens, and where the first difference is (partition, section source).
-- One row per run, replaced by each sync: `show` and the HTML view read it.
CREATE TABLE last_sync (
    run_id           TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id),
    iteration        BIGINT           NOT NULL,
    tokens           BIGINT           NOT NULL,
    bytes            BIGINT           NOT NULL,
    prev_bytes       BIGINT           NOT NULL,
    kept_bytes       BIGINT           NOT NULL,
    break_partition  TEXT COLLATE "C" NOT NULL DEFAULT '',
    break_source     TEXT COLLATE "C" NOT NULL DEFAULT ''
);

-- +goose Down
DROP TABLE last_sync;
