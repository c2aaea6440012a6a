package window

import "github.com/delta-memory/delta-memory/fold"

// Once a run has a chapter or a cascade, the errors it left unresolved and
// the state of the files it touched are shown as they stood at the newest
// iteration the summaries before the timeline cover (the blocks made up to
// the last chapter or cascade), in a State partition before Working,
// rather than as of the current step at the window's end. Everything after
// that iteration shows in the timeline (the blocks made since, Working's
// iterations) or among the newest iterations the caller shows itself, so
// nothing is lost; and since that state changes only when the summaries are
// laid out again, it sits in the prefix a prompt cache keeps, where at the
// end it was sent again at every call (each call appends an iteration
// before it). The runtime's notes, the bookmarks and the goal stay in
// Dynamic.

// stateAsOf is the iteration the run's state is shown as of: the newest a
// visible block made at or before iteration made covers (the blocks made
// since show in the timeline), 0 before any such fold.
func stateAsOf(blocks []fold.Shown, made int) int {
	n := 0
	for _, b := range blocks {
		if b.Made <= made {
			n = max(n, b.Last)
		}
	}
	return n
}

// fitDynamic moves the sections of dynamic (buildDynamic) that carry the
// run's state as of the summaries (Section.AsOf) into a State partition,
// empty before the summaries cover any iteration, and returns it and what
// is left of dynamic, both fitted. State is fitted to half of Dynamic's
// share, whatever the rest takes, so that it changes only when the
// summaries are laid out again; Dynamic takes what it leaves, its goal
// kept last.
func (f *fitter) fitDynamic(dynamic Partition, cfg fold.Config, omitted *[]string) (Partition, Partition) {
	state := Partition{Name: State}
	kept := dynamic.Sections[:0]
	for _, s := range dynamic.Sections {
		if s.AsOf > 0 {
			state.Sections = append(state.Sections, s)
		} else {
			kept = append(kept, s)
		}
	}
	dynamic.Sections = kept
	if len(state.Sections) > 0 {
		state.Budget = cfg.DynamicBudget() / 2
		f.fitTail(&state, omitted)
	}
	dynamic.Budget = cfg.DynamicBudget() - f.cost(&state)
	f.fitTail(&dynamic, omitted)
	return state, dynamic
}

// endsCost is what the State and Dynamic partitions take together.
func (f *fitter) endsCost(state, dynamic *Partition) int { return f.cost(state) + f.cost(dynamic) }
