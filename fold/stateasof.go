package fold

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/scoring"
)

// callEntity is the entity a call acts on and the action entity_state
// records for it ("read_file ok"); ok is false for a call that names no
// file or entity (a shell command's changes come from its effects).
func callEntity(c CallNote) (entity, action string, ok bool) {
	if c.Target == "" || strings.HasPrefix(c.Target, "`") {
		return "", "", false
	}
	if !c.OK {
		return c.Target, c.Tool + " failed", true
	}
	return c.Target, c.Tool + " ok", true
}

// EntityStatesAsOf returns what EntityStates returned once iteration last
// was noted, for the entities acted on in iterations first to last: the
// limit acted on most recently, newest first, each with its last action
// up to last. It reads those iterations' calls and changes only, so its
// cost follows last-first, not the run, and its answer does not change
// as the run goes on: a window shows it as the state as of its summaries.
func (s *Store) EntityStatesAsOf(ctx context.Context, run string, first, last, limit int) ([]EntityState, error) {
	if first > last || limit <= 0 {
		return nil, nil
	}
	acts, err := s.Activity(ctx, run, first, last)
	if err != nil {
		return nil, err
	}
	var changes []Change
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &changes, `SELECT entity, iteration, effect, other FROM entity_history
		WHERE run_id = ? AND iteration BETWEEN ? AND ? ORDER BY iteration, ord`, run, first, last); err != nil {
		return nil, fmt.Errorf("read entity history of iterations %d-%d: %w", first, last, sqldb.Classify(err))
	}
	// As touchEntities records them: an iteration's calls, then what its
	// changes made of each entity, each overwriting the entity's action.
	state := map[string]EntityState{}
	k := 0
	for _, a := range acts {
		for _, c := range a.Calls {
			if e, action, ok := callEntity(c); ok {
				state[e] = EntityState{Entity: e, Iteration: a.Number, Action: action}
			}
		}
		for ; k < len(changes) && changes[k].Iteration <= a.Number; k++ {
			c := changes[k]
			ch := scoring.EntityChange{Entity: c.Entity, Effect: scoring.Effect(c.Effect), Other: c.Other}
			state[c.Entity] = EntityState{Entity: c.Entity, Iteration: c.Iteration, Action: ch.Describe()}
		}
	}
	out := make([]EntityState, 0, len(state))
	for _, e := range state {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b EntityState) int {
		return cmp.Or(cmp.Compare(b.Iteration, a.Iteration), strings.Compare(b.Entity, a.Entity))
	})
	return out[:min(limit, len(out))], nil
}
