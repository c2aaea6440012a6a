-- +goose Up
-- PostgreSQL version of ../00003_recall.sql: INTEGER is BIGINT, REAL is
-- DOUBLE PRECISION, TEXT is TEXT COLLATE "C", no WITHOUT ROWID.

-- recall_meta: database-wide facts of the recall index. 'generation' names
-- the bleve index the positions below describe; an index with another
-- generation (rebuilt, replaced, lost) is refilled from the database.
CREATE TABLE recall_meta (
    key   TEXT COLLATE "C" PRIMARY KEY,
    value TEXT COLLATE "C" NOT NULL
);

-- recall_state: per run, how far the index and the recall triggers got.
CREATE TABLE recall_state (
    run_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id),
    -- The index holds iterations up to indexed_iter; the newest of them is
    -- indexed again when it grows past indexed_seq.
    indexed_iter  BIGINT NOT NULL DEFAULT 0,
    indexed_seq   BIGINT NOT NULL DEFAULT 0,
    -- The index holds the blocks with rowid <= indexed_block.
    indexed_block BIGINT NOT NULL DEFAULT 0,
    -- The triggers have looked at iterations up to checked_iter, the newest
    -- of them as of checked_seq.
    checked_iter  BIGINT NOT NULL DEFAULT 0,
    checked_seq   BIGINT NOT NULL DEFAULT 0,
    next_recall   BIGINT NOT NULL DEFAULT 1
);

-- recalls: what was brought back into the Retrieved partition, and why.
-- Rows are kept after they expire, as the run's recall history.
CREATE TABLE recalls (
    run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    id         BIGINT           NOT NULL,
    first_iter BIGINT           NOT NULL,
    last_iter  BIGINT           NOT NULL,
    -- block: the block whose document matched, NULL for an iteration hit.
    block      TEXT COLLATE "C",
    reason     TEXT COLLATE "C" NOT NULL,
    query      TEXT COLLATE "C" NOT NULL,
    score      DOUBLE PRECISION NOT NULL,
    -- since: the iteration that made the recall; expires: the last
    -- iteration it shows at (moved on when a later iteration names it).
    since      BIGINT           NOT NULL,
    expires    BIGINT           NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE INDEX recalls_expires ON recalls (run_id, expires);

-- +goose Down
DROP TABLE recalls;
DROP TABLE recall_state;
DROP TABLE recall_meta;
