-- +goose Up
-- The blocks of a run in the order they were made: recall's index follows
-- them by rowid (blocks made after position N). The primary key orders a
-- run's blocks by id, so that lookup read all the run's blocks and sorted
-- them, on every catch-up; an index on run_id alone holds (run_id, rowid).
CREATE INDEX blocks_made ON blocks (run_id);

-- +goose Down
DROP INDEX blocks_made;
