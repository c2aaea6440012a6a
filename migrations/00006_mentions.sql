-- +goose Up
-- mentions: the entities each finished iteration names, for the recall
-- triggers, which look an entity up here instead of in the bleve index: a
-- sync then need not open the index at all (see recall/mentions.go).
-- changed = 1 rows are the entities the iteration created, modified, moved
-- or deleted; changed = 0 rows those its thought, actions and error lines
-- name. names is how many entities that list of the iteration holds: the
-- triggers prefer the iteration that names fewest, then the newest.
CREATE TABLE mentions (
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    entity    TEXT    NOT NULL,
    changed   INTEGER NOT NULL,
    names     INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    failed    INTEGER NOT NULL,
    -- In the order a lookup ranks them: fewest names first, then newest.
    PRIMARY KEY (run_id, entity, changed, names, iteration DESC)
) WITHOUT ROWID;
-- Does a recent stretch of iterations name an entity?
CREATE INDEX mentions_iteration ON mentions (run_id, entity, iteration);

-- The triggers' lookups cover iterations up to mentioned_iter; acts_names
-- and changed_names sum the names of those iterations' two lists, for the
-- mean a score is normalised by.
ALTER TABLE recall_state ADD COLUMN mentioned_iter INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN acts_names INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN changed_names INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE recall_state DROP COLUMN changed_names;
ALTER TABLE recall_state DROP COLUMN acts_names;
ALTER TABLE recall_state DROP COLUMN mentioned_iter;
DROP INDEX mentions_iteration;
DROP TABLE mentions;
