-- +goose Up
-- PostgreSQL version of ../00002_fold.sql: INTEGER is BIGINT, REAL is
-- DOUBLE PRECISION, TEXT is TEXT COLLATE "C", no WITHOUT ROWID, blocks has
-- an explicit rowid column, and fold_log.id is a BIGSERIAL.

-- Blocks: folded ranges of iterations. Never deleted. A block absorbed by a
-- coarser one keeps parent set; an unfolded block keeps unfolded = 1. Only
-- visible blocks are shown, and visible blocks never overlap.
CREATE TABLE blocks (
    -- ids are readable ("L2-51-70") and unique within a run.
    id               TEXT COLLATE "C" NOT NULL,
    run_id           TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    level            BIGINT           NOT NULL,
    kind             TEXT COLLATE "C" NOT NULL,
    first_iter       BIGINT           NOT NULL,
    last_iter        BIGINT           NOT NULL,
    visible          BIGINT           NOT NULL DEFAULT 1,
    unfolded         BIGINT           NOT NULL DEFAULT 0,
    parent           TEXT COLLATE "C",
    importance       DOUBLE PRECISION NOT NULL DEFAULT 0,
    access_count     BIGINT           NOT NULL DEFAULT 0,
    last_access_iter BIGINT           NOT NULL DEFAULT 0,
    error_count      BIGINT           NOT NULL DEFAULT 0,
    change_count     BIGINT           NOT NULL DEFAULT 0,
    tokens           BIGINT           NOT NULL DEFAULT 0,
    trigger          TEXT COLLATE "C" NOT NULL,
    summarizer       TEXT COLLATE "C" NOT NULL,
    created_iter     BIGINT           NOT NULL,
    started_at       TEXT COLLATE "C" NOT NULL DEFAULT '',
    ended_at         TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at       TEXT COLLATE "C" NOT NULL DEFAULT '',
    title            TEXT COLLATE "C" NOT NULL DEFAULT '',
    outcome          TEXT COLLATE "C" NOT NULL DEFAULT '',
    -- JSON arrays of strings.
    keywords         TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    entities         TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    state_changes    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    errors           TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    -- JSON array of iteration numbers kept in detail inside the block.
    pinned           TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    content          TEXT COLLATE "C" NOT NULL DEFAULT '',
    -- rowid stands for SQLite's implicit rowid: the block's position in
    -- the order blocks were made (recall's index follows it), unique.
    rowid            BIGSERIAL        NOT NULL UNIQUE,
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
    run_id      TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    number      BIGINT           NOT NULL,
    block       TEXT COLLATE "C",
    -- Small columns first: the window sums l0_tokens over the iterations
    -- shown in full.
    l0_tokens   BIGINT           NOT NULL,
    msg_tokens  BIGINT           NOT NULL,
    l1_tokens   BIGINT           NOT NULL,
    has_error   BIGINT           NOT NULL DEFAULT 0,
    -- protect: why the iteration is kept in detail when folded ('' if not).
    protect     TEXT COLLATE "C" NOT NULL DEFAULT '',
    milestone   TEXT COLLATE "C" NOT NULL DEFAULT '',
    started_at  TEXT COLLATE "C" NOT NULL DEFAULT '',
    l1          TEXT COLLATE "C" NOT NULL,
    -- JSON arrays of strings.
    entities    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    changes     TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    errors      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    terms       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    -- calls: JSON [{tool, target, ok, error}] and system: JSON ["LEVEL: text"]
    -- of runtime notes, both for the Dynamic partition.
    calls       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    system      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    -- The L0 rendering (Markdown and OpenAI messages) is kept only while
    -- the iteration shows in full; folding clears it, unfolding rebuilds it.
    l0          TEXT COLLATE "C" NOT NULL DEFAULT '',
    l0_messages TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    PRIMARY KEY (run_id, number),
    FOREIGN KEY (run_id, block) REFERENCES blocks (run_id, id)
);
CREATE INDEX iteration_notes_l0 ON iteration_notes (run_id, number, l0_tokens) WHERE block IS NULL;

-- Document frequencies of index terms over a run's iterations, for TF-IDF.
CREATE TABLE term_df (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    term   TEXT COLLATE "C" NOT NULL,
    df     BIGINT           NOT NULL,
    PRIMARY KEY (run_id, term)
);

-- Entity state: the last action the run took on each file or entity, for
-- the Dynamic partition.
CREATE TABLE entity_state (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    entity    TEXT COLLATE "C" NOT NULL,
    iteration BIGINT           NOT NULL,
    action    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (run_id, entity)
);
CREATE INDEX entity_state_recent ON entity_state (run_id, iteration, entity);

CREATE TABLE bookmarks (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    iteration BIGINT           NOT NULL,
    note      TEXT COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, iteration)
);

-- Scheduler state per run.
CREATE TABLE fold_state (
    run_id          TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id),
    -- noted: iterations up to this one have notes.
    noted           BIGINT           NOT NULL DEFAULT 0,
    -- noted_seq: the last seq of the newest noted iteration; when that
    -- iteration grows (a result arrives late), its note is made again.
    noted_seq       BIGINT           NOT NULL DEFAULT 0,
    -- tools_ok: JSON array of the tools that have succeeded at least once.
    tools_ok        TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    last_interval   BIGINT           NOT NULL DEFAULT 0,
    -- chapter_start: the first iteration after the last milestone.
    chapter_start   BIGINT           NOT NULL DEFAULT 1,
    milestone_title TEXT COLLATE "C" NOT NULL DEFAULT '',
    milestone_iter  BIGINT           NOT NULL DEFAULT 0,
    -- pending_milestone: a title declared by `delta memory milestone`.
    pending_milestone TEXT COLLATE "C" NOT NULL DEFAULT ''
);

-- Fold log: every fold, unfold and pin decision, for `show` and debugging.
-- id was SQLite's INTEGER PRIMARY KEY (a rowid alias): inserts leave it
-- out, so it is a BIGSERIAL here.
CREATE TABLE fold_log (
    id        BIGSERIAL        PRIMARY KEY,
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    iteration BIGINT           NOT NULL,
    action    TEXT COLLATE "C" NOT NULL,
    block     TEXT COLLATE "C" NOT NULL DEFAULT '',
    detail    TEXT COLLATE "C" NOT NULL DEFAULT ''
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
