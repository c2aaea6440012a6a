-- +goose Up
-- index_positions: how far each recall index got in each run. One
-- database may serve several workers, each with a bleve index of its own
-- (PostgreSQL); worker names the index: '' for the one beside a SQLite
-- file, else the worker's host and index directory. recall_meta keeps each
-- index's generation under 'generation', followed by ' ' and the worker
-- for a named one.
CREATE TABLE index_positions (
    worker        TEXT    NOT NULL,
    run_id        TEXT    NOT NULL REFERENCES runs (id),
    -- The index holds iterations up to indexed_iter; the newest of them is
    -- indexed again when it grows past indexed_seq.
    indexed_iter  INTEGER NOT NULL DEFAULT 0,
    indexed_seq   INTEGER NOT NULL DEFAULT 0,
    -- The index holds the blocks with rowid <= indexed_block.
    indexed_block INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (worker, run_id)
) WITHOUT ROWID;
INSERT INTO index_positions (worker, run_id, indexed_iter, indexed_seq, indexed_block)
    SELECT '', run_id, indexed_iter, indexed_seq, indexed_block FROM recall_state
    WHERE indexed_iter > 0 OR indexed_seq > 0 OR indexed_block > 0;
ALTER TABLE recall_state DROP COLUMN indexed_iter;
ALTER TABLE recall_state DROP COLUMN indexed_seq;
ALTER TABLE recall_state DROP COLUMN indexed_block;

-- +goose Down
ALTER TABLE recall_state ADD COLUMN indexed_iter INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN indexed_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN indexed_block INTEGER NOT NULL DEFAULT 0;
UPDATE recall_state SET
    indexed_iter = COALESCE((SELECT p.indexed_iter FROM index_positions p WHERE p.worker = '' AND p.run_id = recall_state.run_id), 0),
    indexed_seq = COALESCE((SELECT p.indexed_seq FROM index_positions p WHERE p.worker = '' AND p.run_id = recall_state.run_id), 0),
    indexed_block = COALESCE((SELECT p.indexed_block FROM index_positions p WHERE p.worker = '' AND p.run_id = recall_state.run_id), 0);
DROP TABLE index_positions;
