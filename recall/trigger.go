package recall

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// Strength is how strongly a named entity calls for folded content, in
// [0,1]: the entity's specificity (a full path 1.0, a file name 0.8, an
// identifier 0.7–0.8, a quoted name 0.5, a plain word 0), scaled by what
// the content is worth. The worth is the covering block's importance,
// raised to 0.8 when the content changed the entity (a write, a fix, a
// delete) and to 0.6 when it failed; even worthless content keeps 0.3 of
// the specificity, since old, never-accessed blocks score low by design.
func Strength(specificity, importance float64, changed, failed bool) float64 {
	w := importance
	if changed {
		w = max(w, 0.8)
	}
	if failed {
		w = max(w, 0.6)
	}
	return specificity * (0.3 + 0.7*min(w, 1))
}

// named is an entity an iteration names, with its index term. acted says
// the iteration's tool calls name it in their arguments: the step acts on
// it again.
type named struct {
	value string
	term  string
	spec  float64
	acted bool
}

// namedEntities returns the specific entities of text, most specific
// first, without repeats.
func namedEntities(text string, max int) []named {
	var out []named
	for _, e := range scoring.Entities(text) {
		spec := scoring.Specificity(e)
		t := entityTerm(e.Value)
		if spec <= 0 || t == "" || weak(e) || slices.ContainsFunc(out, func(n named) bool { return n.term == t }) {
			continue
		}
		out = append(out, named{value: e.Value, term: t, spec: spec})
	}
	slices.SortStableFunc(out, func(a, b named) int {
		switch {
		case a.spec > b.spec:
			return -1
		case a.spec < b.spec:
			return 1
		}
		return 0
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// StepResult says what the triggers did.
type StepResult struct {
	// Checked counts the iterations looked at.
	Checked int `json:"checked"`
	// Recalls are the recalls made or refreshed, each once, as they stand
	// after the step.
	Recalls []Recall `json:"recalls"`
}

// Step runs the implicit and error-driven triggers on the run's new
// iterations. Only the newest TTL iterations of a long import are looked
// at: a recall made earlier would have expired by now. The mentions the
// triggers look up are brought up to date first. The index is caught up
// only once it lacks Config.IndexEvery iterations or more: a step that
// does not write to it does not open it (see mentions.go).
func (r *Recaller) Step(ctx context.Context, run journal.Run) (StepResult, error) {
	var res StepResult
	if run.Iterations == 0 {
		return res, nil
	}
	st, err := r.state(ctx, run.ID)
	if err != nil {
		return res, err
	}
	from := st.CheckedIter + 1
	if st.CheckedIter > 0 && st.CheckedIter <= run.Iterations && run.LastSeq > st.CheckedSeq {
		from = st.CheckedIter // the newest checked iteration grew
	}
	from = max(from, run.Iterations-r.cfg.TTL+1, 1)
	if r.indexDue(st, run, 0) {
		// The catch-up saves the mentions of what it indexes.
		if _, err := r.catchUp(ctx, run, nil, false); err != nil {
			return res, err
		}
		if st, err = r.state(ctx, run.ID); err != nil {
			return res, err
		}
	}
	if err := r.mention(ctx, run, st.MentionedIter); err != nil {
		return res, err
	}
	if from > run.Iterations {
		return res, nil
	}
	its, err := r.journal.IterationsOf(ctx, run, from, run.Iterations, journal.ReadOptions{})
	if err != nil {
		return res, err
	}
	for _, it := range its {
		if it.Number == st.CheckedIter && it.LastSeq <= st.CheckedSeq {
			continue // read again in case it grew; it did not
		}
		c, err := r.triggers(ctx, run, it)
		if err != nil {
			return res, err
		}
		c.checked, c.checkedIt, c.checkedSeq = true, it.Number, run.LastSeq
		made, err := r.store.apply(ctx, run.ID, it.Number, r.cfg.TTL, c)
		if err != nil {
			return res, err
		}
		if err := r.touch(ctx, run.ID, made, it.Number); err != nil {
			return res, err
		}
		res.Checked++
		for _, m := range made {
			// A recall made and then refreshed in one step is listed once,
			// as it stands.
			if i := slices.IndexFunc(res.Recalls, func(r Recall) bool { return r.ID == m.ID }); i >= 0 {
				res.Recalls[i] = m
				continue
			}
			res.Recalls = append(res.Recalls, m)
		}
	}
	return res, nil
}

// minErrorSpecificity keeps error-driven recall to names that point at one
// thing (paths, files, hosts, URLs, identifiers): an exception class or a
// quoted word in an error names a kind of failure, not what failed.
const minErrorSpecificity = 0.7

// maxNamed bounds the entities of one iteration that are looked up.
const maxNamed = 8

// triggers decides the recalls an iteration of run calls for.
func (r *Recaller) triggers(ctx context.Context, jr journal.Run, it *journal.Iteration) (change, error) {
	var c change
	run := jr.ID
	// What the iteration names: its thought and its actions' arguments.
	var b strings.Builder
	b.WriteString(it.Thought)
	for i := range it.Calls {
		b.WriteByte('\n')
		b.WriteString(scoring.ArgText(it.Calls[i].Args))
		b.WriteByte('\n')
		b.WriteString(it.Calls[i].Command)
	}
	names := namedEntities(b.String(), maxNamed)
	// What the calls alone name: the step acts on those.
	var calls strings.Builder
	for i := range it.Calls {
		calls.WriteString(scoring.ArgText(it.Calls[i].Args))
		calls.WriteByte('\n')
		calls.WriteString(it.Calls[i].Command)
		calls.WriteByte('\n')
	}
	acted := map[string]bool{}
	for _, a := range namedEntities(calls.String(), maxNamed*max(1, len(it.Calls))) {
		acted[a.term] = true
	}
	for i := range names {
		names[i].acted = acted[names[i].term]
	}

	// A recall named again lives on.
	active, err := r.store.active(ctx, r.store.db.Read, run, it.Number)
	if err != nil {
		return c, err
	}
	for _, a := range active {
		q := strings.ToLower(a.Query)
		if slices.ContainsFunc(names, func(n named) bool { return n.term == q }) {
			c.refresh = append(c.refresh, a.ID)
		}
	}

	errs, err := r.errorRecalls(ctx, run, it)
	if err != nil {
		return c, err
	}
	c.add = append(c.add, errs...)
	imp, err := r.implicitRecalls(ctx, run, it, names, c.add)
	if err != nil {
		return c, err
	}
	c.add = append(c.add, imp...)
	return c, nil
}

// implicitRecalls matches the named entities against folded iterations.
// An entity that recent iterations shown in full also name is being worked
// on in plain sight: its older history is not recalled for it.
//
// A call that takes a value an earlier, folded call took (the same path,
// id, date or query: argValues) is a revisit too, found by the value
// rather than by an entity. What the step's calls act on comes before
// what only its thought names, however strongly that matches: the call is
// about to run on it. Of two candidates equally strong, one found by a
// value comes first: two calls that took the same argument are tied by
// what they acted on, where an entity's match may be a step that only
// talked about it (a thought restating a booking ties with the call that
// read the booking). Then the newer comes first.
func (r *Recaller) implicitRecalls(ctx context.Context, run string, it *journal.Iteration, names []named, taken []Recall) ([]Recall, error) {
	now := it.Number
	var cands []candidate
	working := -1
	covered := newCoverages(r.folds, run)
	// The values as written, for the recall's query.
	written := map[string]string{}
	for i := range it.Calls {
		for v := range strings.SplitSeq(scoring.ArgText(it.Calls[i].Args), "\n") {
			v = strings.TrimSpace(v)
			if _, ok := written[strings.ToLower(v)]; !ok {
				written[strings.ToLower(v)] = v
			}
		}
	}
	for _, v := range argValues(it.Calls) {
		last, err := r.store.latestArg(ctx, run, v, now)
		if err != nil {
			return nil, err
		}
		if last == 0 {
			continue
		}
		cov, err := covered.of(ctx, last)
		if err != nil {
			return nil, err
		}
		if !cov.folded {
			continue // the latest call that took it is in plain sight
		}
		if s := Strength(valueSpecificity(v, names), max(cov.importance, revisitWorth), false, false); s >= r.cfg.ImplicitThreshold {
			cands = append(cands, candidate{Recall: Recall{First: last, Last: last, Reason: ReasonImplicit, Query: cmp.Or(written[v], v), Score: round3(s)}, byArg: true, acted: true})
		}
	}
	for _, n := range names {
		if n.spec < r.cfg.ImplicitThreshold {
			break // sorted by specificity: no later one can pass either
		}
		if working < 0 {
			w, err := r.folds.WorkingFrom(ctx, run)
			if err != nil {
				return nil, err
			}
			working = w
		}
		if working < now {
			seen, err := r.store.namedBetween(ctx, run, n.term, working, now)
			if err != nil {
				return nil, err
			}
			if seen {
				continue
			}
		}
		best, err := r.bestFolded(ctx, run, now, n, 8, covered)
		if err != nil {
			return nil, err
		}
		if best.Reason != "" && best.Score >= r.cfg.ImplicitThreshold {
			cands = append(cands, candidate{Recall: best, acted: n.acted})
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.acted != b.acted:
			if a.acted {
				return -1
			}
			return 1
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.byArg != b.byArg:
			if a.byArg {
				return -1
			}
			return 1
		}
		return b.Last - a.Last
	})
	var out []Recall
	for _, x := range cands {
		if len(out) == r.cfg.MaxImplicit {
			break
		}
		if contains(out, x.First, x.Last) || contains(taken, x.First, x.Last) {
			continue
		}
		x.Recall.Again = x.acted
		out = append(out, x.Recall)
	}
	return out, nil
}

// valueSpecificity is how specific a value a call takes again is: as
// specific as the entity it names, when the step names it as one (a full
// path, a URL), else argSpecificity. The latest call that took a path
// again then weighs as much as an entity match on the path, which would
// otherwise find an older, more focused step: of two reads of a file, the
// newer shows what the file holds now.
func valueSpecificity(v string, names []named) float64 {
	spec := argSpecificity
	for _, n := range names {
		if n.term == v {
			spec = max(spec, n.spec)
		}
	}
	return spec
}

// candidate is an implicit recall a step may make; byArg says it was found
// by an argument value the step's call takes again, acted that the step's
// calls name what it matched (implicitRecalls).
type candidate struct {
	Recall
	byArg, acted bool
}

// coverage is what Folds.Covering says of an iteration.
type coverage struct {
	importance float64
	folded     bool
}

// coverages reads iterations' coverage for one trigger decision, each
// once: the entities' hits overlap, and the folds do not change while the
// triggers decide.
type coverages struct {
	folds Folds
	run   string
	seen  map[int]coverage
}

func newCoverages(folds Folds, run string) *coverages {
	return &coverages{folds: folds, run: run, seen: map[int]coverage{}}
}

// of returns iteration n's coverage.
func (c *coverages) of(ctx context.Context, n int) (coverage, error) {
	if cov, ok := c.seen[n]; ok {
		return cov, nil
	}
	_, imp, folded, err := c.folds.Covering(ctx, c.run, n)
	if err != nil {
		return coverage{}, err
	}
	cov := coverage{importance: imp, folded: folded}
	c.seen[n] = cov
	return cov, nil
}

// Worth of a revisit and discount of a hit only an output showed, for
// Strength: a step that acts again on an entity an earlier, folded step
// acted on (opened, searched, called) needs what that step saw, however
// unimportant its block; an iteration whose output only listed the
// entity explains it less than one that acted on it.
const (
	revisitWorth  = 0.9
	shownDiscount = 0.9
	// argSpecificity is the specificity of a value a call takes again: as
	// much as a short identifier's.
	argSpecificity = 0.7
)

// bestFolded finds the folded iteration before now that best explains an
// entity: one that changed it, else one that failed on it, else the most
// recent that acted on it, else one whose output showed it, and scores it
// with Strength. covered reads the coverage of the iterations looked at,
// each once per trigger decision.
func (r *Recaller) bestFolded(ctx context.Context, run string, now int, n named, limit int, covered *coverages) (Recall, error) {
	var best Recall
	seen := map[int]bool{}
	for _, kind := range []int{mentionChanged, mentionActed, mentionShown} {
		group, err := r.store.mentionHits(ctx, run, n.term, kind, now, limit)
		if err != nil {
			return best, err
		}
		for _, h := range group {
			if seen[h.First] {
				continue
			}
			seen[h.First] = true
			cov, err := covered.of(ctx, h.First)
			if err != nil {
				return best, err
			}
			if !cov.folded {
				continue
			}
			worth := cov.importance
			if n.acted {
				worth = max(worth, revisitWorth)
			}
			s := Strength(n.spec, worth, kind == mentionChanged, h.Failed)
			if kind == mentionShown {
				s *= shownDiscount
			}
			if s > best.Score || s == best.Score && h.Last > best.Last {
				best = Recall{First: h.First, Last: h.Last, Reason: ReasonImplicit, Query: n.value, Score: round3(s)}
			}
		}
	}
	return best, nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// weak reports an entity too generic to call anything back: a directory of
// one segment (src/, tests/, /tmp) or a device file such as /dev/null.
func weak(e scoring.Entity) bool {
	if e.Kind != scoring.EntityPath {
		return false
	}
	v := strings.TrimRight(e.Value, "/")
	if strings.HasPrefix(v, "/dev/") || strings.HasPrefix(v, "/proc/") {
		return true
	}
	oneSegment := !strings.Contains(strings.Trim(v, "/.~"), "/")
	return oneSegment && (strings.HasSuffix(e.Value, "/") || path.Ext(v) == "")
}

// indexDue reports whether a step should catch the index up: it lacks
// Config.IndexEvery iterations of the run or more, or, given early, that
// many fewer (see CatchUpIfDue); never when it lacks none.
func (r *Recaller) indexDue(st state, run journal.Run, early int) bool {
	return run.Iterations-st.IndexedIter >= max(1, r.cfg.IndexEvery-early)
}
