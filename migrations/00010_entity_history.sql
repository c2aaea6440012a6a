-- +goose Up
-- entity_history: every state change a run made to each file, directory
-- or package, one row per entity it changed, seen from that entity: a
-- move is "moved-to" for its source (other = the destination) and
-- "moved-from" for its destination. entity_state keeps the last action
-- only; error-driven recall needs the last change before a failure and
-- the change that made the entity, and the Dynamic partition the last
-- known state of what failed. entity is spelled as scoring.EntityKey
-- spells it; ord orders the changes of one iteration.
CREATE TABLE entity_history (
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    entity    TEXT    NOT NULL,
    iteration INTEGER NOT NULL,
    ord       INTEGER NOT NULL,
    effect    TEXT    NOT NULL,
    other     TEXT    NOT NULL DEFAULT '',
    -- An entity's last change before an iteration: one seek, read backwards.
    PRIMARY KEY (run_id, entity, iteration, ord)
) WITHOUT ROWID;
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
