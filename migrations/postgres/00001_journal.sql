-- +goose Up
-- PostgreSQL version of ../00001_journal.sql: INTEGER is BIGINT, BLOB is
-- BYTEA, TEXT is TEXT COLLATE "C" (byte order, as in SQLite), no WITHOUT
-- ROWID, and events has an explicit rowid column.

-- Runs: one agent execution each. Counters and the open-iteration position
-- live here so that appending never has to scan the run's events.
CREATE TABLE runs (
    id            TEXT COLLATE "C" PRIMARY KEY,
    last_seq      BIGINT NOT NULL DEFAULT 0,
    events        BIGINT NOT NULL DEFAULT 0,
    iterations    BIGINT NOT NULL DEFAULT 0,
    -- activity orders runs by their last append without a wall clock: it is
    -- the rowid of the run's newest event, and event rowids only grow.
    activity      BIGINT NOT NULL DEFAULT 0,
    status        TEXT COLLATE "C" NOT NULL DEFAULT 'RUNNING',
    format        TEXT COLLATE "C" NOT NULL DEFAULT '',
    started_at    TEXT COLLATE "C" NOT NULL DEFAULT '',
    ended_at      TEXT COLLATE "C" NOT NULL DEFAULT '',
    agent_ref     TEXT COLLATE "C" NOT NULL DEFAULT '',
    -- Long texts last, so that reading the counters never touches their
    -- overflow pages.
    task          TEXT COLLATE "C" NOT NULL DEFAULT '',
    system_prompt TEXT COLLATE "C" NOT NULL DEFAULT ''
);

-- Events: the journal, verbatim. Never deleted, never updated.
-- rowid stands for SQLite's implicit rowid: assigned on insert, unique,
-- growing; the newest event's rowid is the run's activity.
CREATE TABLE events (
    run_id  TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    seq     BIGINT           NOT NULL,
    ts      TEXT COLLATE "C" NOT NULL DEFAULT '',
    type    TEXT COLLATE "C" NOT NULL,
    payload BYTEA            NOT NULL,
    rowid   BIGSERIAL        NOT NULL UNIQUE,
    PRIMARY KEY (run_id, seq)
);

-- Iterations: one Think-Act-Observe cycle each, as a contiguous seq range of
-- events plus the figures a listing needs without decoding payloads.
CREATE TABLE iterations (
    run_id      TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    number      BIGINT           NOT NULL,
    first_seq   BIGINT           NOT NULL,
    last_seq    BIGINT           NOT NULL,
    thought_seq BIGINT           NOT NULL DEFAULT 0,
    started_at  TEXT COLLATE "C" NOT NULL DEFAULT '',
    ended_at    TEXT COLLATE "C" NOT NULL DEFAULT '',
    calls       BIGINT           NOT NULL DEFAULT 0,
    results     BIGINT           NOT NULL DEFAULT 0,
    failures    BIGINT           NOT NULL DEFAULT 0,
    status      TEXT COLLATE "C" NOT NULL DEFAULT '',
    has_error   BIGINT           NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, number)
);
CREATE INDEX iterations_errors ON iterations (run_id, has_error) WHERE has_error = 1;

-- Import cursors: how far a journal file has been read, so that the next
-- import of the same file seeks past what is stored instead of re-reading it.
-- "offset" is quoted: OFFSET is a reserved word in PostgreSQL.
CREATE TABLE import_cursors (
    path        TEXT COLLATE "C" NOT NULL,
    run_id      TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    "offset"    BIGINT           NOT NULL,
    line        BIGINT           NOT NULL,
    last_seq    BIGINT           NOT NULL,
    prefix_hash TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (path, run_id)
);

-- +goose Down
DROP TABLE import_cursors;
DROP TABLE iterations;
DROP TABLE events;
DROP TABLE runs;
