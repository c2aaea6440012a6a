-- +goose Up
-- Runs: one agent execution each. Counters and the open-iteration position
-- live here so that appending never has to scan the run's events.
CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    last_seq      INTEGER NOT NULL DEFAULT 0,
    events        INTEGER NOT NULL DEFAULT 0,
    iterations    INTEGER NOT NULL DEFAULT 0,
    -- activity orders runs by their last append without a wall clock: it is
    -- the rowid of the run's newest event, and event rowids only grow.
    activity      INTEGER NOT NULL DEFAULT 0,
    status        TEXT NOT NULL DEFAULT 'RUNNING',
    format        TEXT NOT NULL DEFAULT '',
    started_at    TEXT NOT NULL DEFAULT '',
    ended_at      TEXT NOT NULL DEFAULT '',
    agent_ref     TEXT NOT NULL DEFAULT '',
    -- Long texts last, so that reading the counters never touches their
    -- overflow pages.
    task          TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT ''
);

-- Events: the journal, verbatim. Never deleted, never updated.
CREATE TABLE events (
    run_id  TEXT    NOT NULL REFERENCES runs (id),
    seq     INTEGER NOT NULL,
    ts      TEXT    NOT NULL DEFAULT '',
    type    TEXT    NOT NULL,
    payload BLOB    NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Iterations: one Think-Act-Observe cycle each, as a contiguous seq range of
-- events plus the figures a listing needs without decoding payloads.
CREATE TABLE iterations (
    run_id      TEXT    NOT NULL REFERENCES runs (id),
    number      INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    thought_seq INTEGER NOT NULL DEFAULT 0,
    started_at  TEXT    NOT NULL DEFAULT '',
    ended_at    TEXT    NOT NULL DEFAULT '',
    calls       INTEGER NOT NULL DEFAULT 0,
    results     INTEGER NOT NULL DEFAULT 0,
    failures    INTEGER NOT NULL DEFAULT 0,
    status      TEXT    NOT NULL DEFAULT '',
    has_error   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, number)
) WITHOUT ROWID;
CREATE INDEX iterations_errors ON iterations (run_id, has_error) WHERE has_error = 1;

-- Import cursors: how far a journal file has been read, so that the next
-- import of the same file seeks past what is stored instead of re-reading it.
CREATE TABLE import_cursors (
    path        TEXT    NOT NULL,
    run_id      TEXT    NOT NULL REFERENCES runs (id),
    offset      INTEGER NOT NULL,
    line        INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    prefix_hash TEXT    NOT NULL,
    PRIMARY KEY (path, run_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE import_cursors;
DROP TABLE iterations;
DROP TABLE events;
DROP TABLE runs;
