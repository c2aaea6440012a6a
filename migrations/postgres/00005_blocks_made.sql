-- +goose Up
-- PostgreSQL version of ../00005_blocks_made.sql. In SQLite an index on
-- run_id alone holds (run_id, rowid); a PostgreSQL index holds only the
-- columns it names, so rowid (the explicit column of 00002) is named here.
-- The blocks of a run in the order they were made: recall's index follows
-- them by rowid (blocks made after position N) without reading and sorting
-- all the run's blocks on every catch-up.
CREATE INDEX blocks_made ON blocks (run_id, rowid);

-- +goose Down
DROP INDEX blocks_made;
