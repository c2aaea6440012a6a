package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Dynamic partition limits.
const (
	recentWindow     = 20 // iterations searched for unresolved errors
	maxErrors        = 5
	maxEntities      = 12
	maxBookmarkTexts = 5
	maxSystemIters   = 3 // iterations whose runtime notes are shown
	goalTaskRunes    = 400
	// stateWindow is how many iterations up to the state's iteration the files
	// and entities are read from (fold.Store.EntityStatesAsOf).
	stateWindow       = 64
	dynamicErrorRunes = 160
)

// buildDynamic gathers the Dynamic partition: unresolved recent errors, the
// state of the files and entities the run touched, bookmarks, and the
// current goal, last. inWorking says which iterations Working shows in
// full, whose bookmarked text Dynamic need not repeat.
//
// With asOf > 0 (the newest iteration the summaries before the timeline
// cover: stateAsOf), the errors and the files and entities are as they
// stood at that iteration, and their sections say so (Section.AsOf): what
// came after shows in the timeline (its blocks, Working's iterations) or
// in the caller's own newest iterations. That state changes only when the
// summaries are laid out again, so Build shows it before Working, in the
// prefix a prompt cache keeps; the runtime's notes, what became of the
// files the newest failures since asOf name, the bookmarks and the goal
// stay last and current.
func buildDynamic(ctx context.Context, j *journal.Store, fs *fold.Store, run journal.Run, inWorking func(int) bool, opts Options, asOf int, omitted *[]string) (Partition, error) {
	p := Partition{Name: Dynamic}
	now := run.Iterations
	if now == 0 {
		return p, nil
	}
	at := now
	if asOf > 0 {
		at = min(asOf, now)
	}
	// The runtime's notes are of the newest iterations, past asOf.
	recent, err := fs.Activity(ctx, run.ID, max(1, now-recentWindow+1), now)
	if err != nil {
		return p, err
	}
	then := recent
	if at < now {
		if then, err = fs.Activity(ctx, run.ID, max(1, at-recentWindow+1), at); err != nil {
			return p, err
		}
	}
	state, errors, err := runState(ctx, fs, run.ID, at, asOf > 0, then)
	if err != nil {
		return p, err
	}
	var notes []Section
	if lines := systemNotes(recent); len(lines) > 0 {
		notes = append(notes, Section{Name: "Runtime notes", Source: "notes:system", Content: strings.Join(lines, "\n")})
	}
	if at < now {
		// What became of the files the failures since asOf name: the
		// failures show in full, the files' history does not.
		k, _ := slices.BinarySearchFunc(recent, at+1, func(a fold.Activity, n int) int { return a.Number - n })
		newer := recent[k:]
		lines, _, err := failedStates(ctx, fs, run.ID, now, unresolvedErrors(newer))
		if err != nil {
			return p, err
		}
		if len(lines) > 0 {
			notes = append(notes, Section{Name: "Files the newest errors name", Source: "entity_history", Content: strings.Join(lines, "\n")})
		}
	}
	if asOf > 0 {
		for i := range state {
			state[i].AsOf = at
			state[i].Name += fmt.Sprintf(" (as of iteration %d)", at)
		}
		p.Sections = append(append(p.Sections, state...), notes...)
	} else {
		// Before any fold: the errors, the runtime's notes, then the files.
		p.Sections = append(append(append(p.Sections, state[:errors]...), notes...), state[errors:]...)
	}
	marks, err := fs.Bookmarks(ctx, run.ID)
	if err != nil {
		return p, err
	}
	if len(marks) > 0 {
		var b strings.Builder
		for i, m := range marks {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "- iteration %d: %s", m.Iteration, m.Note)
		}
		p.Sections = append(p.Sections, Section{Name: "Bookmarks", Source: "bookmarks", Content: b.String()})
		// The bookmarked iterations' own text, when no Working section
		// shows it already: newest bookmarks first, a few at most.
		texts := 0
		for i := len(marks) - 1; i >= 0; i-- {
			m := marks[i]
			if inWorking(m.Iteration) || m.Iteration > now {
				continue
			}
			if texts == maxBookmarkTexts {
				*omitted = append(*omitted, fmt.Sprintf("bookmark:%d left out: only the %d newest bookmarks show their text", m.Iteration, maxBookmarkTexts))
				continue
			}
			it, err := j.Iteration(ctx, run.ID, m.Iteration, journal.ReadOptions{})
			if err != nil {
				return p, err
			}
			r := fold.RenderL0(opts.Tokenizer, it, opts.Config.OutputCap())
			p.Sections = append(p.Sections, Section{
				Name: fmt.Sprintf("Bookmarked iteration %d", m.Iteration), Source: fmt.Sprintf("bookmark:%d", m.Iteration),
				Tokens: r.MarkdownTokens, Content: strings.TrimRight(r.Markdown, "\n"),
			})
			texts++
		}
	}
	title, at, err := fs.Milestone(ctx, run.ID)
	if err != nil {
		return p, err
	}
	var goal strings.Builder
	if run.Task != "" {
		fmt.Fprintf(&goal, "Task: %s\n", clip(run.Task, goalTaskRunes))
	}
	if title != "" {
		fmt.Fprintf(&goal, "Latest milestone: %s (iteration %d)\n", title, at)
	}
	fmt.Fprintf(&goal, "Next: iteration %d.", now+1)
	p.Sections = append(p.Sections, Section{Name: "Current goal", Source: "run.task+milestone", Content: goal.String()})
	return p, nil
}

// runState gives the run's state sections as it stood at iteration at:
// its unresolved recent errors (from recent, the activity of the
// recentWindow iterations up to at), then the state of the files and
// entities it touched, the files its errors name first. errors is how
// many of the sections are the errors' (0 or 1). folded reads the files
// and entities from the iterations up to at (fold.Store.EntityStatesAsOf),
// at being the newest the summaries cover; otherwise at is the newest
// iteration, and the run's latest actions are read.
func runState(ctx context.Context, fs *fold.Store, run string, at int, folded bool, recent []fold.Activity) (state []Section, errors int, err error) {
	open := unresolvedErrors(recent)
	if len(open) > 0 {
		lines := make([]string, len(open))
		for i, f := range open {
			lines[i] = f.line()
		}
		state, errors = append(state, Section{Name: "Unresolved errors", Source: "notes:recent", Content: strings.Join(lines, "\n")}), 1
	}
	lines, listed, err := failedStates(ctx, fs, run, at, open)
	if err != nil {
		return nil, 0, err
	}
	var states []fold.EntityState
	if folded {
		states, err = fs.EntityStatesAsOf(ctx, run, max(1, at-stateWindow+1), at, maxEntities)
	} else {
		states, err = fs.EntityStates(ctx, run, maxEntities)
	}
	if err != nil {
		return nil, 0, err
	}
	for _, s := range states {
		if !listed[s.Entity] {
			lines = append(lines, fmt.Sprintf("- %s: %s (iteration %d)", s.Entity, s.Action, s.Iteration))
		}
	}
	if len(lines) > 0 {
		state = append(state, Section{Name: "Files and entities", Source: "entity_state", Content: strings.Join(lines, "\n")})
	}
	return state, errors, nil
}

// failure is a failed call of a recent iteration.
type failure struct {
	iter int
	c    fold.CallNote
}

// line renders the failure for the Unresolved errors section.
func (f failure) line() string {
	return strings.TrimSpace(fmt.Sprintf("- [iter %d] %s %s: %s", f.iter, f.c.Tool, f.c.Target, clip(f.c.Error, dynamicErrorRunes)))
}

// unresolvedErrors returns the failed calls of recent iterations that no
// later successful call on the same target has resolved, newest last.
func unresolvedErrors(recent []fold.Activity) []failure {
	var open []failure
	for _, n := range recent {
		for _, c := range n.Calls {
			if c.OK {
				// A success on the same target (or the same tool, when the
				// call had none) resolves earlier failures.
				kept := open[:0]
				for _, f := range open {
					if !(f.c.Target == c.Target && (c.Target != "" || f.c.Tool == c.Tool)) {
						kept = append(kept, f)
					}
				}
				open = kept
			} else if c.Error != "" || !c.OK && !c.Pending {
				open = append(open, failure{n.Number, c})
			}
		}
	}
	if len(open) > maxErrors {
		open = open[len(open)-maxErrors:]
	}
	return open
}

// maxFailedLookups bounds the history lookups of failedStates.
const maxFailedLookups = 12

// failedStates gives the last known state of the files the unresolved
// failures name (in their targets and error lines), newest failure first,
// from the run's entity history: "- data/a.json: moved to data/a.json.bak
// at iteration 545". listed holds the entities it gives a line, as
// scoring.EntityKey spells them.
func failedStates(ctx context.Context, fs *fold.Store, run string, at int, open []failure) (lines []string, listed map[string]bool, err error) {
	listed = map[string]bool{}
	looked := map[string]bool{}
	for i := len(open) - 1; i >= 0 && len(looked) < maxFailedLookups; i-- {
		for _, e := range scoring.Entities(open[i].c.Target + "\n" + open[i].c.Error) {
			key := scoring.EntityKey(e.Value)
			if e.Kind != scoring.EntityPath && e.Kind != scoring.EntityFile || key == "" || looked[key] {
				continue
			}
			if len(looked) == maxFailedLookups {
				break
			}
			looked[key] = true
			c, ok, err := fs.LastChange(ctx, run, key, at+1)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				listed[key] = true
				lines = append(lines, fmt.Sprintf("- %s: %s", key, c.Describe(key)))
			}
		}
	}
	return lines, listed, nil
}

// systemNotes lists the runtime's notes of the last few iterations.
func systemNotes(recent []fold.Activity) []string {
	var lines []string
	for _, n := range recent[max(0, len(recent)-maxSystemIters):] {
		for _, s := range n.System {
			lines = append(lines, fmt.Sprintf("- [iter %d] %s", n.Number, clip(s, dynamicErrorRunes)))
		}
	}
	return lines
}

func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
