-- +goose Up
-- last_sync: how the newest memory file a sync wrote for a run began like
-- the one before it, which is what a provider's prompt cache reuses:
-- kept_bytes of prev_bytes (the previous file's length), the new file's
-- tokens, and where the first difference is (partition, section source).
-- One row per run, replaced by each sync: `show` and the HTML view read it.
CREATE TABLE last_sync (
    run_id           TEXT    PRIMARY KEY REFERENCES runs (id),
    iteration        INTEGER NOT NULL,
    tokens           INTEGER NOT NULL,
    bytes            INTEGER NOT NULL,
    prev_bytes       INTEGER NOT NULL,
    kept_bytes       INTEGER NOT NULL,
    break_partition  TEXT    NOT NULL DEFAULT '',
    break_source     TEXT    NOT NULL DEFAULT ''
);

-- +goose Down
DROP TABLE last_sync;
