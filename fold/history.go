package fold

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/scoring"
)

// The entity history (table entity_history) keeps every state change of
// a run, entity by entity: what error-driven recall brings back when an
// action fails on a file, and what the Dynamic partition says became of
// it. Each lookup is one indexed query whose cost depends on the entity,
// not on the run's length.

// Change is one entity's state change at an iteration.
type Change struct {
	// Entity is the path or package changed, as scoring.EntityKey spells
	// it.
	Entity    string `db:"entity" json:"entity"`
	Iteration int    `db:"iteration" json:"iteration"`
	// Effect is a scoring.Effect: "created", "moved-to", "chmod", ...
	Effect string `db:"effect" json:"effect"`
	// Other is the other end of a move, copy or link, or the mode or
	// owner set.
	Other string `db:"other" json:"other,omitempty"`
}

// Describe says what became of entity through the change: "moved to
// data/a.json.bak at iteration 545". A change of a directory above entity
// names that directory: "data deleted at iteration 600".
func (c Change) Describe(entity string) string {
	what := scoring.EntityChange{Entity: c.Entity, Effect: scoring.Effect(c.Effect), Other: c.Other}.Describe()
	if c.Entity != scoring.EntityKey(entity) {
		what = c.Entity + " " + what
	}
	return fmt.Sprintf("%s at iteration %d", what, c.Iteration)
}

// recordHistory appends the note's effects to the run's entity history,
// in order, and returns them as recorded. An iteration noted again (it
// grew) replaces its rows. A modification of an entity the history knows
// is gone (deleted or moved away, before or earlier in the iteration) is
// recorded as its creation: writing a file that is not there makes it.
func recordHistory(ctx context.Context, tx *sqlx.Tx, n *Note, renote bool) ([]scoring.EntityChange, error) {
	if renote {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entity_history WHERE run_id = ? AND iteration = ?`, n.Run, n.Number); err != nil {
			return nil, fmt.Errorf("replace entity history of iteration %d: %w", n.Number, sqldb.Classify(err))
		}
	}
	if len(n.effects) == 0 {
		return nil, nil
	}
	out := make([]scoring.EntityChange, 0, len(n.effects))
	latest := map[string]scoring.Effect{} // this iteration's, so far
	for i, e := range n.effects {
		if e.Effect == scoring.EffectModified {
			prev, ok := latest[e.Entity]
			if !ok {
				var last string
				err := tx.GetContext(ctx, &last, `SELECT effect FROM entity_history WHERE run_id = ? AND entity = ? AND iteration < ?
					ORDER BY iteration DESC, ord DESC LIMIT 1`, n.Run, e.Entity, n.Number)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return nil, fmt.Errorf("read entity history of %s: %w", e.Entity, sqldb.Classify(err))
				}
				prev = scoring.Effect(last)
			}
			if prev.Removes() {
				e.Effect = scoring.EffectCreated
			}
		}
		latest[e.Entity] = e.Effect
		if _, err := tx.ExecContext(ctx, `INSERT INTO entity_history (run_id, entity, iteration, ord, effect, other) VALUES (?, ?, ?, ?, ?, ?)`,
			n.Run, e.Entity, n.Number, i, string(e.Effect), e.Other); err != nil {
			return nil, fmt.Errorf("record entity history of %s: %w", e.Entity, sqldb.Classify(err))
		}
		out = append(out, e)
	}
	return out, nil
}

// maxParents bounds the directories above an entity whose removal
// LastChange looks for.
const maxParents = 4

// LastChange returns what became of entity before iteration before: its
// last change, or the last removal (delete, move away) of one of the
// nearest directories above it, whichever is newer. ok is false when the
// run's history holds neither. entity is spelled as written; it is looked
// up as scoring.EntityKey spells it.
func (s *Store) LastChange(ctx context.Context, run, entity string, before int) (c Change, ok bool, err error) {
	key := scoring.EntityKey(entity)
	if key == "" {
		return c, false, nil
	}
	q := s.db.Cached()
	err = sqlx.GetContext(ctx, q, &c, `SELECT entity, iteration, effect, other FROM entity_history
		WHERE run_id = ? AND entity = ? AND iteration < ? ORDER BY iteration DESC, ord DESC LIMIT 1`, run, key, before)
	switch {
	case err == nil:
		ok = true
	case !errors.Is(err, sql.ErrNoRows):
		return c, false, fmt.Errorf("read entity history of %s: %w", key, sqldb.Classify(err))
	}
	var pairs []entityEffect
	for _, p := range parentDirs(key) {
		pairs = append(pairs, entityEffect{p, scoring.EffectDeleted}, entityEffect{p, scoring.EffectMovedTo})
	}
	up, found, err := s.latestOf(ctx, run, before, pairs)
	switch {
	case err != nil:
		return c, false, fmt.Errorf("read entity history above %s: %w", key, err)
	case found && (!ok || up.Iteration > c.Iteration):
		return up, true, nil
	}
	return c, ok, nil
}

// Making returns the change that made entity, before iteration before:
// the last that created it or moved, copied or linked it in, or else, the
// run having only changed it, the first change. ok is false when the
// run's history holds none.
func (s *Store) Making(ctx context.Context, run, entity string, before int) (c Change, ok bool, err error) {
	key := scoring.EntityKey(entity)
	if key == "" {
		return c, false, nil
	}
	var pairs []entityEffect
	for _, e := range []scoring.Effect{scoring.EffectCreated, scoring.EffectMovedFrom, scoring.EffectCopiedFrom, scoring.EffectLinkedTo} {
		pairs = append(pairs, entityEffect{key, e})
	}
	if c, ok, err = s.latestOf(ctx, run, before, pairs); err != nil || ok {
		if err != nil {
			err = fmt.Errorf("read entity history of %s: %w", key, err)
		}
		return c, ok, err
	}
	err = sqlx.GetContext(ctx, s.db.Cached(), &c, `SELECT entity, iteration, effect, other FROM entity_history
		WHERE run_id = ? AND entity = ? AND iteration < ? ORDER BY iteration, ord LIMIT 1`, run, key, before)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, false, nil
	case err != nil:
		return c, false, fmt.Errorf("read entity history of %s: %w", key, sqldb.Classify(err))
	}
	return c, true, nil
}

// entityEffect is one effect on one entity.
type entityEffect struct {
	entity string
	effect scoring.Effect
}

// latestOf returns the newest change before iteration before that is one
// of pairs, the longest entity first among changes of one iteration. Each
// pair costs one seek of entity_history_effect, however long the
// entity's history.
func (s *Store) latestOf(ctx context.Context, run string, before int, pairs []entityEffect) (c Change, ok bool, err error) {
	if len(pairs) == 0 {
		return c, false, nil
	}
	var q strings.Builder
	args := make([]any, 0, 4*len(pairs))
	q.WriteString("SELECT entity, iteration, effect, other FROM (")
	for i, p := range pairs {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT * FROM (SELECT entity, iteration, effect, other FROM entity_history INDEXED BY entity_history_effect
			WHERE run_id = ? AND entity = ? AND effect = ? AND iteration < ? ORDER BY iteration DESC LIMIT 1) AS h%d`, i)
		args = append(args, run, p.entity, string(p.effect), before)
	}
	q.WriteString(") AS latest ORDER BY iteration DESC, length(entity) DESC, entity LIMIT 1")
	err = sqlx.GetContext(ctx, s.db.Cached(), &c, q.String(), args...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, false, nil
	case err != nil:
		return c, false, sqldb.Classify(err)
	}
	return c, true, nil
}

// parentDirs returns the nearest maxParents directories above a path,
// nearest first; none for the root or a path of one segment.
func parentDirs(p string) []string {
	if strings.Contains(p, "://") {
		return nil
	}
	var out []string
	for d := path.Dir(p); d != "." && d != "/" && d != p && len(out) < maxParents; d = path.Dir(d) {
		out = append(out, d)
		p = d
	}
	return out
}
