package recall

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/journal"
)

// The recall triggers look entities up in SQLite's mentions table, not in
// the bleve index. Their lookups are exact: which earlier iteration changed
// or named this path, ranked by how few entities it names, then by how
// recent it is, which is the order bleve's BM25 gave the same one-term
// queries. Keeping them out of bleve lets a sync leave the index closed:
// opening it, writing a segment per new iteration, merging and closing
// were two fifths of a sync process's time. The index then catches up in
// batches (Config.IndexEvery) and before every explicit recall.

// mentionChunk is how many iterations one transaction of mentions covers.
const mentionChunk = 1024

// What a mention row says of its entity: the iteration named it in its
// thought, actions or errors (mentionActed), changed it (mentionChanged),
// or only showed it in a tool output (mentionShown). The mentions table
// stores the kind in its changed column.
const (
	mentionActed   = 0
	mentionChanged = 1
	mentionShown   = 2
	// mentionArg rows hold a call's short string arguments, lower-cased as
	// written (not as entity terms): "2024-05-27", "den", "parse date".
	mentionArg = 3
)

// maxShown bounds the output entities one iteration adds to the mentions:
// a listing can name hundreds, and the first ones are what it showed first.
const maxShown = 24

// mentionRow is one entity of one list of an iteration.
type mentionRow struct {
	entity    string
	kind      int
	names     int
	iteration int
	failed    bool
}

// mentionRows lists what an iteration names, as rows of the mentions
// table.
func mentionRows(number int, n iterationNames) (rows []mentionRow) {
	for _, e := range n.acts {
		rows = append(rows, mentionRow{entity: e, kind: mentionActed, names: len(n.acts), iteration: number, failed: n.failed})
	}
	for _, e := range n.changed {
		rows = append(rows, mentionRow{entity: e, kind: mentionChanged, names: len(n.changed), iteration: number, failed: n.failed})
	}
	for _, e := range n.shown {
		rows = append(rows, mentionRow{entity: e, kind: mentionShown, names: len(n.shown), iteration: number, failed: n.failed})
	}
	for _, v := range n.args {
		rows = append(rows, mentionRow{entity: v, kind: mentionArg, names: len(n.args), iteration: number, failed: n.failed})
	}
	return rows
}

// mentionBatch gathers the rows of consecutive iterations for one
// transaction.
type mentionBatch struct {
	rows []mentionRow
}

func (b *mentionBatch) add(number int, n iterationNames) {
	b.rows = append(b.rows, mentionRows(number, n)...)
}

// save writes the batch as the mentions of iterations after..to.
func (b *mentionBatch) save(ctx context.Context, s *store, run string, after, to int) error {
	// In the table's order, so that the inserts of a transaction touch
	// neighbouring pages.
	slices.SortFunc(b.rows, func(x, y mentionRow) int {
		return cmp.Or(strings.Compare(x.entity, y.entity), cmp.Compare(x.kind, y.kind),
			cmp.Compare(x.names, y.names), cmp.Compare(y.iteration, x.iteration))
	})
	return s.saveMentions(ctx, run, after, to, b.rows)
}

// mention brings the run's mentions up to date: every iteration but the
// newest, which may still grow (its results come with the next lines).
// The triggers look only at iterations before the one they check, so
// they never need it. done is how far the mentions went
// (recall_state.mentioned_iter).
func (r *Recaller) mention(ctx context.Context, run journal.Run, done int) error {
	for from := done + 1; from < run.Iterations; {
		to := min(run.Iterations-1, from+mentionChunk-1)
		its, err := r.journal.IterationsOf(ctx, run, from, to, journal.ReadOptions{})
		if err != nil {
			return err
		}
		var b mentionBatch
		for _, it := range its {
			var named strings.Builder
			n := readNames(it, nil, &named)
			n.shown = shownOnly(n.acts, entityIDs(named.String()))
			b.add(it.Number, n)
		}
		if err := b.save(ctx, &r.store, run.ID, from-1, to); err != nil {
			return err
		}
		from = to + 1
	}
	return nil
}

// mentionInsertRows is how many rows one INSERT writes (six parameters
// each, well under SQLite's limit of 32,766).
const mentionInsertRows = 128

// saveMentions writes the mentions of iterations after..to and moves the
// run's position to, in one transaction. It writes nothing when the
// position is no longer after (another writer got there first).
func (s *store) saveMentions(ctx context.Context, run string, after, to int, rows []mentionRow) error {
	return s.update(ctx, run, func(tx *sqlx.Tx) error {
		if err := ensureState(ctx, tx, run); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE recall_state SET mentioned_iter = ? WHERE run_id = ? AND mentioned_iter = ?`, to, run, after)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		for len(rows) > 0 {
			k := min(len(rows), mentionInsertRows)
			q := "INSERT INTO mentions (run_id, entity, changed, names, iteration, failed) VALUES " +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", k), ", ")
			args := make([]any, 0, 6*k)
			for _, m := range rows[:k] {
				args = append(args, run, m.entity, m.kind, m.names, m.iteration, flag(m.failed))
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("save mentions of run %s: %w", run, err)
			}
			rows = rows[k:]
		}
		return nil
	})
}

// mentionHits returns the iterations before `before` whose list (the
// entities they changed, or those they named) holds term, best first:
// fewest names, then newest. At most limit.
func (s *store) mentionHits(ctx context.Context, run, term string, kind, before, limit int) ([]Hit, error) {
	var rows []struct {
		Iteration int  `db:"iteration"`
		Names     int  `db:"names"`
		Failed    bool `db:"failed"`
	}
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &rows, `SELECT iteration, names, failed FROM mentions
		WHERE run_id = ? AND entity = ? AND changed = ? AND iteration < ?
		ORDER BY names, iteration DESC LIMIT ?`, run, term, kind, before, limit); err != nil {
		return nil, fmt.Errorf("look up %q in run %s: %w", term, run, err)
	}
	hits := make([]Hit, len(rows))
	for i, r := range rows {
		hits[i] = Hit{Kind: KindIteration, First: r.Iteration, Last: r.Iteration, Failed: r.Failed, names: r.Names}
	}
	return hits, nil
}

// latestArg returns the newest iteration before `before` whose calls took
// value as an argument, 0 when none did.
func (s *store) latestArg(ctx context.Context, run, value string, before int) (int, error) {
	var n sql.NullInt64
	err := sqlx.GetContext(ctx, s.db.Cached(), &n, `SELECT MAX(iteration) FROM mentions INDEXED BY mentions_iteration
		WHERE run_id = ? AND entity = ? AND iteration < ? AND changed = ?`, run, value, before, mentionArg)
	if err != nil {
		return 0, fmt.Errorf("look up %q in run %s: %w", value, run, err)
	}
	return int(n.Int64), nil
}

// namedBetween reports whether an iteration of from..before-1 names term.
func (s *store) namedBetween(ctx context.Context, run, term string, from, before int) (bool, error) {
	var yes bool
	err := sqlx.GetContext(ctx, s.db.Cached(), &yes, `SELECT EXISTS (SELECT 1 FROM mentions INDEXED BY mentions_iteration
		WHERE run_id = ? AND entity = ? AND iteration >= ? AND iteration < ? AND changed = 0)`, run, term, from, before)
	if err != nil {
		return false, fmt.Errorf("look up %q in run %s: %w", term, run, err)
	}
	return yes, nil
}

// flag is a bool as SQLite stores it.
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}
