-- +goose Up
-- PostgreSQL version of ../00006_mentions.sql: INTEGER is BIGINT, TEXT is
-- TEXT COLLATE "C", no WITHOUT ROWID, and the primary key's DESC order is
-- kept by a separate index (see below).

-- mentions: the entities each finished iteration names, for the recall
-- triggers, which look an entity up here instead of in the bleve index: a
-- sync then need not open the index at all (see recall/mentions.go).
-- changed = 1 rows are the entities the iteration created, modified, moved
-- or deleted; changed = 0 rows those its thought, actions and error lines
-- name. names is how many entities that list of the iteration holds: the
-- triggers prefer the iteration that names fewest, then the newest.
CREATE TABLE mentions (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    entity    TEXT COLLATE "C" NOT NULL,
    changed   BIGINT           NOT NULL,
    names     BIGINT           NOT NULL,
    iteration BIGINT           NOT NULL,
    failed    BIGINT           NOT NULL,
    -- PostgreSQL allows no DESC in a PRIMARY KEY: the key is on the plain
    -- columns, and mentions_rank below keeps the SQLite key's order.
    PRIMARY KEY (run_id, entity, changed, names, iteration)
);
-- In the order a lookup ranks them (ORDER BY names, iteration DESC in
-- recall/mentions.go): fewest names first, then newest.
CREATE INDEX mentions_rank ON mentions (run_id, entity, changed, names, iteration DESC);
-- Does a recent stretch of iterations name an entity?
CREATE INDEX mentions_iteration ON mentions (run_id, entity, iteration);

-- The triggers' lookups cover iterations up to mentioned_iter; acts_names
-- and changed_names sum the names of those iterations' two lists, for the
-- mean a score is normalised by.
ALTER TABLE recall_state ADD COLUMN mentioned_iter BIGINT NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN acts_names BIGINT NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN changed_names BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE recall_state DROP COLUMN changed_names;
ALTER TABLE recall_state DROP COLUMN acts_names;
ALTER TABLE recall_state DROP COLUMN mentioned_iter;
DROP INDEX mentions_iteration;
DROP INDEX mentions_rank;
DROP TABLE mentions;
