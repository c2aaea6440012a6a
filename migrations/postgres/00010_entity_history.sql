-- +goose Up
-- PostgreSQL version of ../00010_entity_history.sql: INTEGER is BIGINT,
-- TEXT is TEXT COLLATE "C", no WITHOUT ROWID.

-- entity_history: every state change a run made to each file, directory
-- or package, one row per entity it changed, seen from that entity: a
-- move is "moved-to" for its source (other = the destination) and
-- "moved-from" for its destination. entity_state keeps the last action
-- only; error-driven recall needs the last change before a failure and
-- the change that made the entity, and the Dynamic partition the last
-- known state of what failed. entity is spelled as scoring.EntityKey
-- spells it; ord orders the changes of one iteration.
CREATE TABLE entity_history (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    entity    TEXT COLLATE "C" NOT NULL,
    iteration BIGINT           NOT NULL,
    ord       BIGINT           NOT NULL,
    effect    TEXT COLLATE "C" NOT NULL,
    other     TEXT COLLATE "C" NOT NULL DEFAULT '',
    -- An entity's last change before an iteration: one seek, read backwards.
    PRIMARY KEY (run_id, entity, iteration, ord)
);
-- The change that made an entity (created, moved, copied or linked in),
-- or the last removal of a parent directory, without reading its other
-- changes.
CREATE INDEX entity_history_effect ON entity_history (run_id, entity, effect, iteration);
-- An iteration noted again replaces its rows.
CREATE INDEX entity_history_iteration ON entity_history (run_id, iteration);

-- +goose Down
DROP INDEX entity_history_iteration;
DROP INDEX entity_history_effect;
DROP TABLE entity_history;
