-- +goose Up
-- PostgreSQL version of ../00007_recall_renders.sql: INTEGER is BIGINT,
-- TEXT is TEXT COLLATE "C", no WITHOUT ROWID.

-- recall_renders: a folded iteration as a recall shows it in full (its L0
-- Markdown under an output bound), with its token count, rendered once and
-- kept here. key names what the rendering depends on besides the iteration
-- (the rendering's version, the tokenizer, the output bound); a folded
-- iteration never changes.
CREATE TABLE recall_renders (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    iteration BIGINT           NOT NULL,
    key       TEXT COLLATE "C" NOT NULL,
    markdown  TEXT COLLATE "C" NOT NULL,
    tokens    BIGINT           NOT NULL,
    PRIMARY KEY (run_id, key, iteration)
);

-- +goose Down
DROP TABLE recall_renders;
