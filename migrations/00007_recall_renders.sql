-- +goose Up
-- recall_renders: a folded iteration as a recall shows it in full (its L0
-- Markdown under an output bound), with its token count. A recall shows
-- for eight iterations or more, each compiled by a new sync process: kept
-- here, the iteration is read from the journal and rendered once. key
-- names what the rendering depends on besides the iteration (the
-- rendering's version, the tokenizer, the output bound); a folded
-- iteration never changes.
CREATE TABLE recall_renders (
    run_id    TEXT    NOT NULL REFERENCES runs (id),
    iteration INTEGER NOT NULL,
    key       TEXT    NOT NULL,
    markdown  TEXT    NOT NULL,
    tokens    INTEGER NOT NULL,
    PRIMARY KEY (run_id, key, iteration)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE recall_renders;
