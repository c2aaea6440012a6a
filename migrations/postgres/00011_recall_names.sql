-- +goose Up
-- PostgreSQL version of ../00011_recall_names.sql: the Down section's
-- INTEGER columns are BIGINT, as 00006 made them.

-- acts_names and changed_names summed the names of the mentioned
-- iterations' lists, for the BM25 score error-driven recall gave a
-- mention. Error-driven recall now scores what it brings back by what it
-- is (see recall/errortrigger.go), and nothing reads the sums.
ALTER TABLE recall_state DROP COLUMN changed_names;
ALTER TABLE recall_state DROP COLUMN acts_names;

-- +goose Down
ALTER TABLE recall_state ADD COLUMN acts_names BIGINT NOT NULL DEFAULT 0;
ALTER TABLE recall_state ADD COLUMN changed_names BIGINT NOT NULL DEFAULT 0;
