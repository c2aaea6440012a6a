-- +goose Up
-- PostgreSQL version of ../00015_fold_decided.sql: INTEGER is BIGINT.

-- decided: the newest iteration after which the scheduler finished
-- deciding (the triggers it applies after noting an iteration). A step cut
-- between noting an iteration and deciding after it (a killed writer, a
-- deadline) leaves decided behind noted, and the next step decides first.
-- Runs noted before this column were decided as far as they were noted.
ALTER TABLE fold_state ADD COLUMN decided BIGINT NOT NULL DEFAULT 0;
UPDATE fold_state SET decided = noted;

-- +goose Down
ALTER TABLE fold_state DROP COLUMN decided;
