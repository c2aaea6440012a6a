-- +goose Up
-- Blocks: folded ranges of iterations. Never deleted. A block absorbed by a
-- coarser one keeps parent set; an unfolded block keeps unfolded = 1. Only
-- visible blocks are shown, and visible blocks never overlap.
CREATE TABLE blocks (
    -- ids are readable ("L2-51-70") and unique within a run.
    id               TEXT    NOT NULL,
    run_id           TEXT    NOT NULL REFERENCES runs (id),
    level            INTEGER NOT NULL,
    kind             TEXT    NOT NULL,
    first_iter       INTEGER NOT NULL,
    last_iter        INTEGER NOT NULL,
    visible          INTEGER NOT NULL DEFAULT 1,
    unfolded         INTEGER NOT NULL DEFAULT 0,
    parent           TEXT,
    importance       REAL    NOT NULL DEFAULT 0,
    access_count     INTEGER NOT NULL DEFAULT 0,
    last_access_iter INTEGER NOT NULL DEFAULT 0,
    error_count      INTEGER NOT NULL DEFAULT 0,
    change_count     INTEGER NOT NULL DEFAULT 0,
    tokens           INTEGER NOT NULL DEFAULT 0,
    trigger          TEXT    NOT NULL,
    summarizer       TEXT    NOT NULL,
    created_iter     INTEGER NOT NULL,
    started_at       TEXT    NOT NULL DEFAULT '',
    ended_at         TEXT    NOT NULL DEFAULT '',
    created_at       TEXT    NOT NULL DEFAULT '',
    title            TEXT    NOT NULL DEFAULT '',
    outcome          TEXT    NOT NULL DEFAULT '',
    -- JSON arrays of strings.
    keywords         TEXT    NOT NULL DEFAULT '[]',
    entities         TEXT    NOT NULL DEFAULT '[]',
    state_changes    TEXT    NOT NULL DEFAULT '[]',
    errors           TEXT    NOT NULL DEFAULT '[]',
    -- JSON array of iteration numbers kept in detail inside the block.
    pinned           TEXT    NOT NULL DEFAULT '[]',
    content          TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, id),
    FOREIGN KEY (run_id, parent) REFERENCES blocks (run_id, id)
);
CREATE INDEX blocks_visible ON blocks (run_id, first_iter) WHERE visible = 1;
-- Covers the scheduler's per-iteration sums of visible tokens by level.
CREATE INDEX blocks_visible_tokens ON blocks (run_id, level, tokens) WHERE visible = 1;
CREATE INDEX blocks_parent ON blocks (run_id, parent) WHERE parent IS NOT NULL;

-- Iteration notes: what folding needs of each iteration, computed once when
-- the iteration is complete, so that the scheduler and the window never
-- re-read or re-tokenize the journal. block is the visible block covering
-- the iteration, NULL while it shows in full (L0).
CREATE TABLE iteration_notes (
    run_id      TEXT    NOT NULL REFERENCES runs (id),
    number      INTEGER NOT NULL,
    block       TEXT,
    -- Small columns first: the window sums l0_tokens over the iterations
    -- shown in full, and a column stored after a long text costs a walk
    -- through that text's overflow pages.
    l0_tokens   INTEGER NOT NULL,
    msg_tokens  INTEGER NOT NULL,
    l1_tokens   INTEGER NOT NULL,
    has_error   INTEGER NOT NULL DEFAULT 0,
    -- protect: why the iteration is kept in detail when folded ('' if not).
    protect     TEXT    NOT NULL DEFAULT '',
    milestone   TEXT    NOT NULL DEFAULT '',
    started_at  TEXT    NOT NULL DEFAULT '',
    l1          TEXT    NOT NULL,
    -- JSON arrays of strings.
    entities    TEXT    NOT NULL DEFAULT '[]',
    changes     TEXT    NOT NULL DEFAULT '[]',
    errors      TEXT    NOT NULL DEFAULT '[]',
    terms       TEXT    NOT NULL DEFAULT '[]',
    -- calls: JSON [{tool, target, ok, error}] and system: JSON ["LEVEL: text"]
    -- of runtime notes, both for the Dynamic partition.
    calls       TEXT    NOT NULL DEFAULT '[]',
    system      TEXT    NOT NULL DEFAULT '[]',
    -- The L0 rendering (Markdown and OpenAI messages) is kept only while
    -- the iteration shows in full; folding clears it, unfolding rebuilds it.
    l0          TEXT    NOT NULL DEFAULT '',
    l0_messages TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (run_id, number),
    FOREIGN KEY (run_id, block) REFERENCES blocks (run_id, id)
) WITHOUT ROWID;
CREATE INDEX iteration_notes_l0 ON iteration_notes (run_id, number, l0_tokens) WHERE block IS NULL;

-- Document frequencies of index terms over a run's iterations, for TF-IDF.
CREATE TABLE term_df (
    run_id TEXT    NOT NULL REFERENCES runs (id),
    term   TEXT    NOT NULL,
    df     INTEGER NOT NULL,
    PRIMARY KEY (run_id, term)
) WITHOUT ROWID;

-- Entity state: the last action the run took on each file or entity, for
-- the Dynamic partition.
CREATE TABLE entity_state (
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    entity    TEXT    NOT NULL,
    iteration INTEGER NOT NULL,
    action    TEXT    NOT NULL,
    PRIMARY KEY (run_id, entity)
) WITHOUT ROWID;
CREATE INDEX entity_state_recent ON entity_state (run_id, iteration, entity);

CREATE TABLE bookmarks (
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    iteration INTEGER NOT NULL,
    note      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;

-- Scheduler state per run.
CREATE TABLE fold_state (
    run_id          TEXT    PRIMARY KEY REFERENCES runs (id),
    -- noted: iterations up to this one have notes.
    noted           INTEGER NOT NULL DEFAULT 0,
    -- noted_seq: the last seq of the newest noted iteration; when that
    -- iteration grows (a result arrives late), its note is made again.
    noted_seq       INTEGER NOT NULL DEFAULT 0,
    -- tools_ok: JSON array of the tools that have succeeded at least once.
    tools_ok        TEXT    NOT NULL DEFAULT '[]',
    last_interval   INTEGER NOT NULL DEFAULT 0,
    -- chapter_start: the first iteration after the last milestone.
    chapter_start   INTEGER NOT NULL DEFAULT 1,
    milestone_title TEXT    NOT NULL DEFAULT '',
    milestone_iter  INTEGER NOT NULL DEFAULT 0,
    -- pending_milestone: a title declared by `delta memory milestone`.
    pending_milestone TEXT  NOT NULL DEFAULT ''
);

-- Fold log: every fold, unfold and pin decision, for `show` and debugging.
CREATE TABLE fold_log (
    id        INTEGER PRIMARY KEY,
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    iteration INTEGER NOT NULL,
    action    TEXT    NOT NULL,
    block     TEXT    NOT NULL DEFAULT '',
    detail    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX fold_log_run ON fold_log (run_id, id);

-- +goose Down
DROP TABLE fold_log;
DROP TABLE fold_state;
DROP TABLE bookmarks;
DROP TABLE entity_state;
DROP TABLE term_df;
DROP TABLE iteration_notes;
DROP TABLE blocks;
