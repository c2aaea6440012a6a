package memory

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// ErrCopyConflict is returned (wrapped) by Copy when a run is in the
// destination already with other contents, and CopyOptions.Replace is off.
var ErrCopyConflict = errors.New("the run is in the destination with other contents")

// ErrCopySettings is returned (wrapped) by Copy when the two engines were
// opened with different fold settings or tokenizers.
var ErrCopySettings = errors.New("the two databases are open with different settings")

// CopyOptions choose what Copy copies.
type CopyOptions struct {
	// Runs are the runs to copy; empty means every run, oldest activity
	// first, so that the destination's newest run is the source's.
	Runs []string
	// Replace lets a run that is in the destination with other contents
	// (an older copy) be replaced; without it Copy stops at such a run.
	Replace bool
}

// CopiedRun says what Copy did with one run.
type CopiedRun struct {
	Run string `json:"run"`
	// Action is "copied", "replaced" or "unchanged" (the destination held
	// it already, the same).
	Action string `json:"action"`
	// Rows counts the run's rows by table, as checked in both databases.
	Rows map[string]int `json:"rows"`
	// WindowTokens is the size of the window both databases build for the
	// run, byte for byte the same.
	WindowTokens int `json:"window_tokens"`
}

// copyTable is a table of a run's state, in the order Copy writes them
// (foreign keys point to earlier ones).
type copyTable struct {
	name string
	// order is the ORDER BY of the source's rows: the order the
	// destination gives them positions in.
	order string
	// autoID names a column the destination assigns (fold_log's id, unique
	// across runs), left out of the copy; rows keep their order.
	autoID string
}

// copyTables are every table that holds a run's state. Left out: what is
// derived and per worker (the recall index's positions and generation),
// the LLM endpoint's breaker (the host's, not the run's), and goose's.
// blocks and events go without their rowid: the destination numbers them
// in the source's order, which is all that rowid means (which block came
// after which; a run's activity).
var copyTables = []copyTable{
	{name: "runs", order: "id"},
	{name: "events", order: "seq"},
	{name: "iterations", order: "number"},
	{name: "import_cursors", order: "path"},
	{name: "blocks", order: "rowid"},
	{name: "iteration_notes", order: "number"},
	{name: "term_df", order: "term"},
	{name: "entity_state", order: "entity"},
	{name: "bookmarks", order: "iteration"},
	{name: "fold_state", order: "run_id"},
	{name: "fold_log", order: "id", autoID: "id"},
	{name: "recall_state", order: "run_id"},
	{name: "recalls", order: "id"},
	{name: "llm_usage", order: "run_id"},
	{name: "mentions", order: "entity, changed, names, iteration"},
	{name: "recall_renders", order: "iteration, key"},
	{name: "entity_history", order: "entity, iteration, ord"},
	{name: "last_sync", order: "run_id"},
}

// runColumn is the column that names a table's run.
func (t copyTable) runColumn() string {
	if t.name == "runs" {
		return "id"
	}
	return "run_id"
}

// Copy copies runs from one database to another, SQLite or PostgreSQL
// either way: every row of a run's journal, folds and recalls, in one
// transaction per run, under the run's lock on both sides. It then checks
// that both hold the same rows of the run in every table (a digest of
// their contents) and build the same window for it, byte for byte: both
// engines must be open with the same settings (ErrCopySettings). The
// source is read from one snapshot. A run the destination holds already,
// the same, is left as it is, so that copying again changes nothing; one
// it holds with other contents is replaced with opts.Replace, unless the
// destination's is ahead (it holds later events), else Copy stops with
// ErrCopyConflict. The destination's
// recall index is not copied: it is built from the database when the run
// is next synced or searched there. progress, if set, is called after each
// run.
func Copy(ctx context.Context, from, to *Engine, opts CopyOptions, progress func(CopiedRun)) ([]CopiedRun, error) {
	if !reflect.DeepEqual(from.Config, to.Config) || from.Recall.Config() != to.Recall.Config() || from.Tokenizer.Name() != to.Tokenizer.Name() {
		return nil, fmt.Errorf("%w: %s and %s are open with different settings (budget %d and %d, tokenizer %s and %s): the copy's window could not be checked against the source's; open both with the same settings file",
			ErrCopySettings, from.Path(), sqldb.Redact(to.Path()), from.Config.Budget, to.Config.Budget, from.Tokenizer.Name(), to.Tokenizer.Name())
	}
	runs := opts.Runs
	if len(runs) == 0 {
		all, err := from.Journal.Runs(ctx)
		if err != nil {
			return nil, err
		}
		for i := len(all) - 1; i >= 0; i-- { // Runs lists the newest first
			runs = append(runs, all[i].ID)
		}
	}
	var out []CopiedRun
	for _, id := range runs {
		c, err := copyRun(ctx, from, to, id, opts.Replace)
		if err != nil {
			return out, fmt.Errorf("copy run %s from %s to %s: %w", id, from.Path(), sqldb.Redact(to.Path()), err)
		}
		out = append(out, c)
		if progress != nil {
			progress(c)
		}
	}
	return out, nil
}

func copyRun(ctx context.Context, from, to *Engine, id string, replace bool) (CopiedRun, error) {
	c := CopiedRun{Run: id, Action: "copied"}
	src, err := from.exclusive(ctx, id)
	if err != nil {
		return c, err
	}
	defer src.Release()
	dst, err := to.exclusive(ctx, id)
	if err != nil {
		return c, err
	}
	defer dst.Release()
	// The source is read from one snapshot: commands that write without
	// the run's lock (a bookmark, a manual fold) cannot land between two of
	// its tables.
	snap, err := from.db.Snapshot(ctx)
	if err != nil {
		return c, err
	}
	defer snap.Rollback()
	want, err := digestRun(ctx, snap, id)
	if err != nil {
		return c, err
	}
	if want.rows["runs"] == 0 {
		return c, fmt.Errorf("%w: %s", journal.ErrRunNotFound, id)
	}
	have, err := digestRun(ctx, to.db.Read, id)
	if err != nil {
		return c, err
	}
	c.Rows = want.rows
	if have.rows["runs"] > 0 {
		if have.sum == want.sum {
			c.Action = "unchanged"
			snap.Rollback() // an engine of one connection builds its window on it
			c.WindowTokens, err = sameWindow(ctx, from, to, id)
			return c, err
		}
		if have.lastSeq > want.lastSeq {
			return c, fmt.Errorf("%w: it is ahead there (events up to seq %d, here %d); copy the other way, or delete it there first", ErrCopyConflict, have.lastSeq, want.lastSeq)
		}
		if !replace {
			return c, fmt.Errorf("%w (events up to seq %d there, %d here): copy it with --replace, or delete it there first", ErrCopyConflict, have.lastSeq, want.lastSeq)
		}
		c.Action = "replaced"
	}
	err = to.db.Update(ctx, id, func(tx *sqlx.Tx) error {
		if have.rows["runs"] > 0 {
			if err := deleteRun(ctx, tx, id); err != nil {
				return err
			}
		}
		for _, t := range copyTables {
			if err := copyRows(ctx, snap, tx, t, id); err != nil {
				return fmt.Errorf("table %s: %w", t.name, err)
			}
		}
		// The run's activity orders runs by their last append: the
		// destination's rowid of its newest event (0 for a run with none).
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET activity = COALESCE((SELECT MAX(rowid) FROM events WHERE run_id = ?), 0) WHERE id = ?`, id, id); err != nil {
			return err
		}
		// The check, before the commit: a copy that differs is not kept.
		got, err := digestRun(ctx, tx, id)
		if err != nil {
			return err
		}
		return want.differs(got)
	})
	if err != nil {
		return c, err
	}
	snap.Rollback() // an engine of one connection builds its window on it
	if c.Action == "replaced" {
		// The documents of the run's old copy in this worker's index
		// (other workers notice theirs on their next catch-up).
		if err := to.Recall.Forget(ctx, id); err != nil {
			return c, err
		}
	}
	c.WindowTokens, err = sameWindow(ctx, from, to, id)
	return c, err
}

// runDigest is what a database holds of a run: its rows counted by table,
// and a hash of their contents in a fixed order, the same for the same rows
// in either dialect.
type runDigest struct {
	rows    map[string]int
	sum     [sha256.Size]byte
	tables  map[string][sha256.Size]byte
	lastSeq int64
}

// differs says which table of a copy (got) does not hold the source's rows
// (d), or nil when none.
func (d runDigest) differs(got runDigest) error {
	if got.sum == d.sum {
		return nil
	}
	for _, t := range copyTables {
		switch {
		case got.rows[t.name] != d.rows[t.name]:
			return fmt.Errorf("table %s would hold %d rows of the run, the source %d; nothing was copied", t.name, got.rows[t.name], d.rows[t.name])
		case got.tables[t.name] != d.tables[t.name]:
			return fmt.Errorf("table %s would hold other values than the source's (text PostgreSQL cannot hold as it is, a NUL byte or bytes that are not UTF-8, becomes U+FFFD); nothing was copied", t.name)
		}
	}
	return errors.New("the copy's rows would differ from the source's; nothing was copied")
}

// digestRun reads a run's rows in every table Copy copies, through q.
func digestRun(ctx context.Context, q sqlx.QueryerContext, run string) (runDigest, error) {
	d := runDigest{rows: make(map[string]int, len(copyTables)), tables: make(map[string][sha256.Size]byte, len(copyTables))}
	h := sha256.New()
	for _, t := range copyTables {
		th := sha256.New()
		h := io.MultiWriter(h, th)
		rows, err := q.QueryxContext(ctx, `SELECT * FROM `+t.name+` WHERE `+t.runColumn()+` = ? ORDER BY `+t.order, run)
		if err != nil {
			return d, fmt.Errorf("read %s: %w", t.name, sqldb.Classify(err))
		}
		names, err := rows.Columns()
		if err != nil {
			rows.Close()
			return d, err
		}
		cols := t.copied(names)
		fmt.Fprintf(h, "table %s\n", t.name)
		for rows.Next() {
			vals, err := rows.SliceScan()
			if err != nil {
				rows.Close()
				return d, err
			}
			for _, i := range cols {
				fmt.Fprintf(h, "%s=", names[i])
				switch v := vals[i].(type) {
				case []byte:
					fmt.Fprintf(h, "%d:%s;", len(v), v)
				case string:
					fmt.Fprintf(h, "%d:%s;", len(v), v)
				case nil:
					h.Write([]byte("null;"))
				default:
					fmt.Fprintf(h, "%v;", v)
				}
				if t.name == "runs" && names[i] == "last_seq" {
					d.lastSeq, _ = vals[i].(int64)
				}
			}
			h.Write([]byte("\n"))
			d.rows[t.name]++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return d, err
		}
		var ts [sha256.Size]byte
		copy(ts[:], th.Sum(nil))
		d.tables[t.name] = ts
	}
	copy(d.sum[:], h.Sum(nil))
	return d, nil
}

// copied lists the columns of names the destination is given: all but
// rowid, which the destination numbers itself, and an autoID; and not
// runs' activity, which is the destination's own rowid of the newest event.
func (t copyTable) copied(names []string) []int {
	var cols []int
	for i, n := range names {
		if n == "rowid" || n == t.autoID || t.name == "runs" && n == "activity" {
			continue
		}
		cols = append(cols, i)
	}
	return cols
}

// sameWindow builds the run's window on both sides, each at its own
// settings (the caller opens both with the same), and fails unless the two
// are byte for byte the same.
func sameWindow(ctx context.Context, from, to *Engine, id string) (int, error) {
	var md [2]string
	tokens := 0
	for i, e := range []*Engine{from, to} {
		run, err := e.Journal.Run(ctx, id)
		if err != nil {
			return 0, err
		}
		cw, err := e.Context(ctx, run, ContextOptions{})
		if err != nil {
			return 0, err
		}
		md[i], tokens = cw.Markdown(), cw.Tokens
	}
	if md[0] != md[1] {
		i := 0
		for i < len(md[0]) && i < len(md[1]) && md[0][i] == md[1][i] {
			i++
		}
		return 0, fmt.Errorf("the copy's window differs from the source's at byte %d of %d", i, len(md[0]))
	}
	return tokens, nil
}

// deleteRun removes a run's rows from every table Copy writes, the tables
// that point to others first.
func deleteRun(ctx context.Context, tx *sqlx.Tx, run string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM index_positions WHERE run_id = ?`, run); err != nil {
		return err
	}
	// Blocks point to their parents: unlink them before deleting.
	if _, err := tx.ExecContext(ctx, `UPDATE iteration_notes SET block = NULL WHERE run_id = ?`, run); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE blocks SET parent = NULL WHERE run_id = ?`, run); err != nil {
		return err
	}
	for i := len(copyTables) - 1; i >= 0; i-- {
		t := copyTables[i]
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE `+t.runColumn()+` = ?`, run); err != nil {
			return fmt.Errorf("delete the run's %s: %w", t.name, sqldb.Classify(err))
		}
	}
	return nil
}

// copyBatch is how many rows one INSERT writes: within both databases'
// limits on a statement's parameters for the widest table.
const copyBatch = 256

// copyRows copies a run's rows of one table from src into tx, in the
// source's order, a batch at a time. blocks go in twice: without their
// parents first, which may come later, then the parents are set.
func copyRows(ctx context.Context, src sqlx.QueryerContext, tx *sqlx.Tx, t copyTable, run string) error {
	rows, err := src.QueryxContext(ctx, `SELECT * FROM `+t.name+` WHERE `+t.runColumn()+` = ? ORDER BY `+t.order, run)
	if err != nil {
		return sqldb.Classify(err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	cols := t.copied(names)
	parent := -1
	if t.name == "blocks" {
		for i, n := range names {
			if n == "parent" {
				parent = i
			}
		}
	}
	var quoted []string
	for _, i := range cols {
		quoted = append(quoted, `"`+names[i]+`"`)
	}
	head := `INSERT INTO ` + t.name + ` (` + strings.Join(quoted, ", ") + `) VALUES `
	tuple := `(` + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + `)`
	var args []any
	n := 0
	type link struct{ id, parent any }
	var links []link
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := head + strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return sqldb.Classify(err)
		}
		args, n = args[:0], 0
		return nil
	}
	for rows.Next() {
		vals, err := rows.SliceScan()
		if err != nil {
			return err
		}
		if parent >= 0 && vals[parent] != nil {
			links = append(links, link{id: vals[columnIndex(names, "id")], parent: vals[parent]})
			vals[parent] = nil
		}
		for _, i := range cols {
			args = append(args, vals[i])
		}
		if n++; n == copyBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	for _, l := range links {
		if _, err := tx.ExecContext(ctx, `UPDATE blocks SET parent = ? WHERE run_id = ? AND id = ?`, l.parent, run, l.id); err != nil {
			return sqldb.Classify(err)
		}
	}
	return nil
}

func columnIndex(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
