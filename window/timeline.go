package window

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/scoring"
)

// Outside a window focused on a question to memory, recalls are shown in
// the run's timeline rather than in a partition after Working.
//
// Each call's memory file gains, at Working's end, the iteration that left
// the caller's own window, and everything after that point is sent to the
// model uncached. Recalls placed after Working were therefore paid in full
// at every call, and the triggers make or fade one at most iterations. In
// the timeline a recall sits where Working ended when it was made, so it
// is appended once and then stays byte for byte, until a later recall
// needs its room or it fades: an expired recall stays until a chapter or
// a cascade changes the window anyway, or at most until the next multiple
// of four TTLs (recall.Config.FadeFrom).
//
// The Short-term blocks made since the last chapter or cascade stand in
// the timeline too, in the place of the first iteration each folds: a fold
// then changes the window from the oldest iteration it takes that was
// shown, not from Short-term's end on, and the recalls made before, the
// run's state and the summaries stay in the cached prefix. The next
// chapter or cascade, which changes Long-term and so breaks the prefix
// there anyway, moves them into Short-term.

// timelineFraming is what a recall in the timeline costs as a chat message
// of its own beyond its Markdown: the message's framing (4 tokens) and a
// token at each end of its text.
const timelineFraming = 6

// timelineRoom says what the recalls of an unfocused window may take at
// each step of the run since it was last laid out: at most their reach,
// at least the room the scheduler holds for them (share, from
// fold.Config.RecallHold), and otherwise what the summaries, the ends'
// shares and what the timeline held at that step leave: Working's
// iterations shown then, and the Short-term blocks made since the last
// chapter or cascade (Options.SummariesLaidOut). As iterations come, the
// recalls' room narrows; a fold gives back what its iterations took, less
// its block.
type timelineRoom struct {
	reach, share int
	// base is the budget less the margin, the summaries laid out before
	// the timeline, Static and Dynamic's share: what the timeline holds.
	base int
	// held is what the timeline held besides the recalls, each for the
	// steps it was there.
	held   []occupant
	native int
	// folds are the Short-term blocks in the timeline, in the order made.
	folds []foldAt
	// slack is what Dynamic leaves of its share now; the room of the
	// current step (now) has it too, those of the steps before do not, so
	// that how Dynamic changes call by call moves no earlier decision.
	now, slack int
	// fixed is what Working's heading and framing take once the timeline
	// holds anything.
	fixed int
}

// occupant is an iteration or a block the timeline held at steps from
// to to-1, and what it took.
type occupant struct{ from, to, cost int }

// foldAt is a block in the timeline: the step that made it, and where it
// stands (Section.at).
type foldAt struct{ made, at int }

// at is the recalls' room at step s, with Dynamic's slack at the current
// step.
func (r *timelineRoom) at(s int) int {
	if s >= r.now {
		return r.room(s, r.slack)
	}
	return r.steady(s)
}

// steady is the room at step s, as the timeline stood then, without
// Dynamic's slack: the same at every call, so that the replay decides
// alike each time.
func (r *timelineRoom) steady(s int) int { return r.room(s, 0) }

// room is the room at step s with slack more of the budget left: the
// share, which the scheduler holds, is the least it gives, slack or none.
func (r *timelineRoom) room(s, slack int) int {
	held := 0
	for _, o := range r.held {
		if o.from <= s && s < o.to {
			held += o.cost
		}
	}
	if held > 0 {
		held += r.fixed
	}
	return min(r.reach, max(r.share, r.base+slack-held))
}

// newTimelineRoom measures what the timeline held at each step: Working's
// iterations, each from the step it left the caller's own window (its
// number plus native) until the step that folded it (made, by number, for
// the iterations the blocks in the timeline fold; folded lists their
// sizes), and those blocks from the step that made them.
func (f *fitter) newTimelineRoom(working Partition, blocks []Section, made map[int]int, folded []fold.Size, reach, share, base, native, now, slack int) *timelineRoom {
	r := &timelineRoom{reach: reach, share: share, base: base, native: native, now: now, slack: max(0, slack)}
	r.fixed = f.headingCost(Working) + messageFraming + f.headingCost(Working)
	iteration := func(tokens, msgTokens int) int {
		s := Section{Tokens: tokens}
		return f.sectionCost(Working, &s) + max(0, msgTokens-tokens)
	}
	for _, s := range working.Sections {
		r.held = append(r.held, occupant{from: s.at + native, to: math.MaxInt, cost: iteration(s.Tokens, s.MessageTokens)})
	}
	for _, z := range folded {
		if m, ok := made[z.Number]; ok && z.Number+native < m {
			r.held = append(r.held, occupant{from: z.Number + native, to: m, cost: iteration(z.L0Tokens, z.MsgTokens)})
		}
	}
	for i := range blocks {
		r.held = append(r.held, occupant{from: blocks[i].made, to: math.MaxInt, cost: f.sectionCost(ShortTerm, &blocks[i]) + timelineFraming})
		r.folds = append(r.folds, foldAt{made: blocks[i].made, at: blocks[i].at})
	}
	slices.SortStableFunc(r.folds, func(a, b foldAt) int { return cmp.Compare(a.made, b.made) })
	return r
}

// RecallTextRoom is the most tokens the text of a recall headed name may
// take for the recall to show whole alone in the least room the timeline
// gives the recalls at a step, and in half their reach. That room is what
// the scheduler holds for them (hold, fold.Config.RecallHold) less
// Working's heading (Build), and the recalls take it after that heading
// again (replay); a recall's section heading, the line after its text and
// a chat message's framing come on top of its text (fitTimeline).
func RecallTextRoom(tok scoring.Tokenizer, name string, reach, hold int) int {
	f := fitter{tok: tok, memo: newMemo()}
	s := Section{Name: name}
	least := min(reach, hold-f.headingCost(Working)) - f.headingCost(Working)
	return min(reach/2, least) - f.sectionCost(Retrieved, &s) - timelineFraming
}

// fitTimeline fills p with the recalls an unfocused window shows, given
// most recently made first, and returns how each showed. The window was
// last laid out at iteration from (a fold, or a fade: Options.LaidOut) and
// the run is at iteration now.
//
// A recall shows whole when that takes at most half its reach, else as
// one line per iteration: its form does not depend on the others. At
// from, where the prefix broke anyway, the recalls made before keep their
// places, newest first, while they fit half the room. The steps since are
// then replayed as the calls saw them, each with its room: the recalls
// made at a step are appended after that step's Working end, and while
// they do not fit, the recall of an earlier step appended last leaves,
// which costs the prompt cache least (or the step's newest, when its own
// do not fit). One that left does not come back before the window is laid
// out again when a later step only names it (its TTL is refreshed, and it
// is carried then); a step that acts on its iterations again makes a
// recall of them anew (Recalled.HeldBy), which arrives at that step while
// none of the recalls of those iterations shows, and shows through the
// one that does. So a call's recalls show at that call, what showed
// before stays where it was, and the same state lays out the same window.
func (f *fitter) fitTimeline(p *Partition, recalls []Recalled, room *timelineRoom, from, now int, omitted *[]string) map[string]string {
	if len(recalls) == 0 {
		return nil
	}
	p.Budget, p.perSection, p.under = room.at(now), timelineFraming, Working
	how := make(map[string]string, len(recalls))
	var picks []*pick // oldest made first
	var left []Recalled
	bySource := make(map[string]*pick, len(recalls))
	for i := len(recalls) - 1; i >= 0; i-- {
		r := recalls[i]
		sec, form, ok := f.timelineForm(r, room.reach/2)
		if !ok {
			how[r.Source] = ShownOmitted
			*omitted = append(*omitted, r.Source+" not shown (too long for the recalls' room)")
			left = append(left, r)
			continue
		}
		sec.at = r.Since - room.native
		x := &pick{sec: sec, how: form, cost: f.sectionCost(Retrieved, &sec) + timelineFraming, r: r}
		switch {
		case form == ShownLines:
			x.lines, x.linesCost = x.sec, x.cost
		case r.Lines != "":
			x.whole, x.wholeCost = x.sec, x.cost
			x.lines = Section{Name: r.Name, Source: r.Source, Content: r.Lines, Tokens: r.LinesTokens, at: sec.at}
			if x.lines.Tokens <= 0 {
				x.lines.Tokens = f.count(r.Lines)
			}
			x.linesCost = f.sectionCost(Retrieved, &x.lines) + timelineFraming
		default:
			x.whole, x.wholeCost = x.sec, x.cost
		}
		if r.Fitted != "" {
			f.fit(x, r, room.reach/2)
		}
		if h := bySource[r.HeldBy]; h != nil {
			if h.kin == nil {
				h.kin = []*pick{h}
			}
			x.kin = append(slices.Clone(h.kin), x)
			for _, k := range x.kin {
				k.kin = x.kin
			}
		}
		bySource[r.Source] = x
		picks = append(picks, x)
	}
	t := replay{used: f.headingCost(Working), heading: f.headingCost(Working)}
	t.carry(picks, room.steady(from)/2)
	folds := room.folds
	for _, s := range arrivals(picks, now) {
		// A fold made by this step changes the window from its block on:
		// the recalls placed after it are laid out again first.
		for ; len(folds) > 0 && folds[0].made <= s; folds = folds[1:] {
			if m := folds[0].made; m > from {
				t.relay(picks, m, folds[0].at, room.steady(m)/2)
			}
		}
		t.step(picks, s, room.steady(s))
	}
	t.slack(picks, now, room.at(now))
	for _, x := range picks {
		if x.shown {
			how[x.r.Source] = x.how
			p.Sections = append(p.Sections, x.sec)
			continue
		}
		if k := x.kinShown(); k != nil {
			how[x.r.Source] = k.how
			*omitted = append(*omitted, x.r.Source+" shown as "+k.r.Source+", which holds the same iterations")
			continue
		}
		why := "later recalls needed its room"
		switch {
		case x.crowded:
			why = "the recalls made with it, and Working's iterations, fill the room"
		case x.r.Carried && x.came == 0:
			why = "made before the window was last laid out, and newer recalls fill its room"
		}
		how[x.r.Source] = ShownOmitted
		*omitted = append(*omitted, x.r.Source+" not shown ("+why+")")
		left = append(left, x.r)
	}
	slices.SortStableFunc(p.Sections, func(a, b Section) int { return cmp.Compare(a.at, b.at) })
	f.traceLeft(p, left, p.Budget)
	return how
}

// maxTraced is how many recalls left out of the timeline its trace names.
const maxTraced = 5

// traceLeft names, in a last section of the timeline, the recalls still
// active that did not show, most recently made first and once for the
// same iterations, in what the recalls left of room, naming fewer if need
// be, or none when not even one name fits: the window's omissions
// (Context.Omitted, `show --json`) list them all in any case.
func (f *fitter) traceLeft(p *Partition, left []Recalled, room int) {
	var active []Recalled
	named := make(map[[2]int]bool, len(left))
	for i := len(left) - 1; i >= 0; i-- {
		// Of recalls of the same iterations (one made anew, HeldBy), the
		// newest names them.
		if r := left[i]; !r.Lingering && !named[r.Covers] {
			named[r.Covers] = true
			active = append(active, r)
		}
	}
	for n := min(len(active), maxTraced); n > 0; n-- {
		lines := make([]string, 0, n+1)
		for _, r := range active[:n] {
			lines = append(lines, "- "+r.Name)
		}
		if more := len(active) - n; more > 0 {
			lines = append(lines, fmt.Sprintf("- and %d more", more))
		}
		lines = append(lines, "(left out for space; `delta memory show --json` lists every recall)")
		s := Section{Name: "Also recalled, not shown", Source: "recall:omitted", Content: strings.Join(lines, "\n"), at: math.MaxInt}
		s.Tokens = f.count(s.Content)
		p.Sections = append(p.Sections, s)
		if f.cost(p) <= room {
			return
		}
		p.Sections = p.Sections[:len(p.Sections)-1]
	}
}

// fit gives pick x, of recall r, its fitted form (Recalled.Fitted) when
// that takes at most limit: shown whole, the fitted form shows more of
// its output, and narrows to whole (replay.narrow); shown as lines, its
// whole form being past limit, the fitted form shows its thought and calls
// with less of the output, and narrows to lines.
func (f *fitter) fit(x *pick, r Recalled, limit int) {
	fit := Section{Name: r.Name, Source: r.Source, Content: r.Fitted, Tokens: r.FittedTokens, at: x.sec.at}
	if fit.Tokens <= 0 {
		fit.Tokens = f.count(r.Fitted)
	}
	c := f.sectionCost(Retrieved, &fit) + timelineFraming
	switch {
	case c > limit:
	case x.how == ShownFull && c > x.cost:
		x.fitted, x.fittedCost = fit, c
		x.sec, x.cost = fit, c
	case x.how == ShownLines && x.wholeCost == 0:
		x.fitted, x.fittedCost = fit, c
		x.sec, x.how, x.cost = fit, ShownFull, c
	}
}

// narrow shows a recall that has a fitted form in the form it has
// without: whole, or, when its whole form is past half the reach, lines.
func (x *pick) narrow() {
	if x.wholeCost > 0 {
		x.sec, x.cost = x.whole, x.wholeCost
		return
	}
	x.sec, x.how, x.cost = x.lines, ShownLines, x.linesCost
}

// kinShown returns the recall of the same iterations as x that shows,
// or nil when none does: x then shows through it.
func (x *pick) kinShown() *pick {
	for _, k := range x.kin {
		if k != x && k.shown {
			return k
		}
	}
	return nil
}

// held reports whether an earlier recall holds x's iterations.
func (x *pick) held() bool { return len(x.kin) > 0 && x.kin[0] != x }

// pick is a recall as the timeline's replay places it.
type pick struct {
	sec   Section
	how   string
	cost  int
	r     Recalled
	shown bool
	// came is the step the recall was appended at, 0 before it is.
	came int
	// crowded says the recall left at the step that made it, for the
	// step's other recalls or Working's iterations.
	crowded bool
	// kin are the recalls of this one's iterations (Recalled.HeldBy), in
	// the order made, this one included, or nil when it is the only one:
	// while one of them shows, the others show through it.
	kin []*pick
	// whole and lines are the recall's forms, with their costs (0 for a
	// form it has not): it shows as lines when, at the step that made it,
	// the room cannot hold it whole.
	whole, lines         Section
	wholeCost, linesCost int
	// fitted is its fitted form (Recalled.Fitted, fit), fittedCost its
	// cost (0 when it has none): it arrives so when the room holds it, else
	// in the form it has without (pick.narrow), and one with more of its
	// output narrows to whole for the step's other recalls (replay.narrow).
	fitted     Section
	fittedCost int
}

// replay lays the timeline's recalls out step by step (fitTimeline).
type replay struct {
	used, heading int
	// order lists the shown recalls in the order they were appended.
	order []*pick
}

// carry places the recalls made before the window was last laid out,
// newest first, each that fits what room has left.
func (t *replay) carry(picks []*pick, room int) {
	place := func(x *pick) {
		if t.used+x.cost > room {
			return
		}
		t.used += x.cost
		x.shown, x.came = true, x.r.Since
	}
	var held []*pick // carried, held by an earlier recall (carried too): decided after it
	for i := len(picks) - 1; i >= 0; i-- {
		x := picks[i]
		switch {
		case !x.r.Carried:
		case x.held():
			held = append(held, x)
		default:
			place(x)
		}
	}
	// Oldest made first: of several that hold the same iterations, the
	// first that fits shows for all.
	for _, x := range slices.Backward(held) {
		if x.kinShown() == nil {
			place(x)
		}
	}
	for _, x := range picks {
		if x.shown {
			t.order = append(t.order, x)
		}
	}
}

// relay lays out again, at step m, the recalls placed at or after a: a
// fold made at m put its block there, so the window changes from there on
// anyway. They leave, and those made before m that are placed there come
// back, newest first, each that fits while the recalls take at most room
// (half the step's): as carry does when the window is laid out, so that
// the recalls to come find room without the ones before leaving.
func (t *replay) relay(picks []*pick, m, a, room int) {
	kept := t.order[:0]
	for _, x := range t.order {
		if x.sec.at >= a {
			x.shown = false
			t.used -= x.cost
			continue
		}
		kept = append(kept, x)
	}
	t.order = kept
	var back []*pick
	for i := len(picks) - 1; i >= 0; i-- {
		x := picks[i]
		if x.shown || x.r.Since >= m || x.sec.at < a || x.kinShown() != nil || t.used+x.cost > room {
			continue
		}
		t.used += x.cost
		x.shown, x.crowded, x.came = true, false, x.r.Since
		back = append(back, x)
	}
	slices.Reverse(back)
	t.order = append(t.order, back...)
}

// arrivals lists the steps at which recalls not carried were made, in
// order, and now: the replay needs no other step, since a step with no
// recall changes only the room, and what it would leave out then leaves at
// the next step replayed, in the same order.
func arrivals(picks []*pick, now int) []int {
	var at []int
	for _, x := range picks {
		if !x.r.Carried {
			at = append(at, x.r.Since)
		}
	}
	at = append(at, now)
	slices.Sort(at)
	return slices.Compact(at)
}

// step replays step s in its steady room: the recalls made then are
// appended, each whole if that fits, else as lines if they fit; then,
// while the recalls do not fit, the one appended last before the step
// leaves, or, when none is left, the step's newest.
func (t *replay) step(picks []*pick, s, room int) {
	var through []*pick // held by a recall that shows
	for _, x := range picks {
		if x.r.Carried || x.r.Since != s {
			continue
		}
		x.came = s
		if x.kinShown() != nil {
			through = append(through, x)
			continue
		}
		t.arrive(x, room)
	}
	t.evict(s, room)
	// A holder that left takes its held recalls' place no longer: they
	// come on their own, and the room is made again.
	for len(through) > 0 {
		var still []*pick
		for _, x := range through {
			if x.kinShown() != nil {
				still = append(still, x)
				continue
			}
			t.arrive(x, room)
		}
		if len(still) == len(through) {
			break
		}
		through = still
		t.evict(s, room)
	}
}

// arrive appends x, as lines when room cannot hold it whole but can its
// lines, or leaves it out (crowded) when room cannot hold it at all.
func (t *replay) arrive(x *pick, room int) {
	if t.heading+x.cost > room && x.fittedCost > 0 && x.cost == x.fittedCost {
		x.narrow()
	}
	if t.heading+x.cost > room && x.linesCost > 0 && x.linesCost < x.cost && t.heading+x.linesCost <= room {
		x.sec, x.how, x.cost = x.lines, ShownLines, x.linesCost
	}
	if t.heading+x.cost > room {
		x.crowded = true
		return
	}
	x.shown = true
	t.order = append(t.order, x)
	t.used += x.cost
}

// evict makes the recalls fit room at step s: the step's recalls that
// arrived fitted narrow first (narrow), then the one appended last before
// the step leaves, then, when none is left, the step's newest.
func (t *replay) evict(s, room int) {
	for t.used > room && len(t.order) > 0 {
		if t.narrow(s) {
			continue
		}
		k := len(t.order) - 1
		for j := len(t.order) - 1; j >= 0; j-- {
			if t.order[j].came < s {
				k = j
				break
			}
		}
		x := t.order[k]
		x.shown, x.crowded = false, x.came == s
		t.used -= x.cost
		t.order = slices.Delete(t.order, k, k+1)
	}
}

// narrow shows the newest recall made at step s that arrived fitted with
// more of its output as whole instead, so that the step's recalls fit the
// room before a recall shown already, or one of them, leaves; false when
// none is left to narrow. One fitted to less of its output than its whole
// form has no whole form to narrow to, only its lines, which would lose its
// calls: it keeps its place as a whole recall does.
func (t *replay) narrow(s int) bool {
	for j := len(t.order) - 1; j >= 0; j-- {
		x := t.order[j]
		if x.came == s && x.fittedCost > 0 && x.cost == x.fittedCost && x.wholeCost > 0 {
			x.narrow()
			t.used += x.cost - x.fittedCost
			return true
		}
	}
	return false
}

// slack gives the recalls of the current step what Dynamic leaves of its
// share at this call (room): first to those left out, whole or as lines,
// then to those shown as lines, whole, in the order the step made them,
// which is the order its triggers ranked them: one that the room cannot
// hold whole beside the step's later recalls takes the room of those shown
// whole, which then show as lines (lesser), so that a lesser recall never
// shows whole where a better one of the same step shows as its line. The
// replay gives no step that slack, since it changes call by call: at the
// next call these show as the steady room allows, and what changes then
// is at the timeline's end.
func (t *replay) slack(picks []*pick, now, room int) {
	for _, x := range picks {
		if x.came != now || x.shown || !x.crowded || x.kinShown() != nil {
			continue
		}
		for _, c := range []struct {
			sec  Section
			how  string
			cost int
		}{{x.whole, ShownFull, x.wholeCost}, {x.lines, ShownLines, x.linesCost}} {
			if c.cost > 0 && t.used+c.cost <= room {
				x.sec, x.how, x.cost = c.sec, c.how, c.cost
				x.shown, x.crowded = true, false
				t.order = append(t.order, x)
				t.used += c.cost
				break
			}
		}
	}
	for i, x := range picks {
		if x.came != now || !x.shown || x.how != ShownLines || x.wholeCost == 0 {
			continue
		}
		lesser, ok := t.lesser(picks[i+1:], now, t.used-x.cost+x.wholeCost-room)
		if !ok {
			continue
		}
		for _, y := range lesser {
			t.used += y.linesCost - y.cost
			y.sec, y.how, y.cost = y.lines, ShownLines, y.linesCost
		}
		t.used += x.wholeCost - x.cost
		x.sec, x.how, x.cost = x.whole, ShownFull, x.wholeCost
	}
}

// lesser picks, of later, the recalls made at step now shown whole that
// must show as lines for need tokens more to fit, the last made first, and
// says whether they free that much; none when need is not positive.
func (t *replay) lesser(later []*pick, now, need int) ([]*pick, bool) {
	var out []*pick
	for i := len(later) - 1; i >= 0 && need > 0; i-- {
		if y := later[i]; y.came == now && y.shown && y.how == ShownFull && y.linesCost > 0 && y.linesCost < y.cost {
			out = append(out, y)
			need -= y.cost - y.linesCost
		}
	}
	return out, need <= 0
}

// timelineForm is how a recall shows in the timeline: whole when that
// takes at most limit tokens, else one line per iteration when that does;
// ok is false when neither fits.
func (f *fitter) timelineForm(r Recalled, limit int) (Section, string, bool) {
	for _, c := range f.forms(r) {
		if f.sectionCost(Retrieved, &c.sec)+timelineFraming <= limit {
			return c.sec, c.how, true
		}
	}
	return Section{}, "", false
}

// timeline interleaves the recalls of an unfocused window with Working's
// iterations and the Short-term blocks made since the window was last laid
// out (those of short placed in the timeline, Section.at > 0), which stand
// where their first iteration stood: each recall after the iterations and
// blocks up to its place (Section.at), those placed before the first at
// the start, in the order they were made. Each item says the partition its
// section belongs to.
func timeline(working, retrieved, short Partition) []placed {
	anchors := make([]placed, 0, len(working.Sections)+len(short.Sections))
	for _, b := range short.Sections {
		if b.at > 0 {
			anchors = append(anchors, placed{ShortTerm, b})
		}
	}
	for _, w := range working.Sections {
		anchors = append(anchors, placed{Working, w})
	}
	slices.SortStableFunc(anchors, func(a, b placed) int { return cmp.Compare(a.section.at, b.section.at) })
	out := make([]placed, 0, len(anchors)+len(retrieved.Sections))
	i := 0
	for _, a := range anchors {
		for i < len(retrieved.Sections) && retrieved.Sections[i].at < a.section.at {
			out = append(out, placed{Retrieved, retrieved.Sections[i]})
			i++
		}
		out = append(out, a)
	}
	for ; i < len(retrieved.Sections); i++ {
		out = append(out, placed{Retrieved, retrieved.Sections[i]})
	}
	return out
}

// laidOutBefore returns p with only the sections shown in its own place:
// without the blocks the timeline shows (Section.at > 0).
func laidOutBefore(p Partition) Partition {
	kept := make([]Section, 0, len(p.Sections))
	for _, s := range p.Sections {
		if s.at == 0 {
			kept = append(kept, s)
		}
	}
	p.Sections = kept
	return p
}

// placed is a section and the partition it belongs to.
type placed struct {
	partition string
	section   Section
}

// widen gives what the window leaves once Working is fitted (spare) to
// the recalls made since the window was last laid out, the most recently
// made first: each takes the widest of its forms the spare holds what it
// adds for, its wider form (Recalled.Wider), then its whole form for one
// the timeline showed as lines. A step that comes back to an earlier one
// needs that step's output, and nothing else would fill the room. A recall
// made before the window was last laid out stays as it was: its place is in
// the prefix a cache holds. One widened stays so while the spare holds it,
// and goes back to its form when a newer recall or Working's growth needs
// the room.
func (f *fitter) widen(p *Partition, recalls []Recalled, how map[string]string, spare int) {
	at := make(map[string]int, len(p.Sections))
	for i, s := range p.Sections {
		at[s.Source] = i
	}
	for _, r := range recalls {
		i, ok := at[r.Source]
		if !ok || !widens(r, how) {
			continue
		}
		s := &p.Sections[i]
		was := f.sectionCost(p.Name, s)
		for _, c := range []struct {
			text   string
			tokens int
		}{{r.Wider, r.WiderTokens}, {r.Full, r.FullTokens}} {
			if c.text == "" || c.text == s.Content {
				continue
			}
			if c.tokens <= 0 {
				c.tokens = f.count(c.text)
			}
			wide := *s
			wide.Content, wide.Tokens = c.text, c.tokens
			if grew := f.sectionCost(p.Name, &wide) - was; grew > 0 && grew <= spare {
				*s, spare = wide, spare-grew
				how[r.Source] = ShownFull
				break
			}
		}
	}
	p.Budget = max(p.Budget, f.cost(p))
}

// widens reports whether widen may give r a wider form: made since the
// window was last laid out, shown, and with a form wider than it shows.
func widens(r Recalled, how map[string]string) bool {
	switch {
	case r.Carried:
		return false
	case how[r.Source] == ShownLines:
		return r.Full != "" || r.Wider != ""
	case how[r.Source] == ShownFull:
		return r.Wider != ""
	}
	return false
}

// widening reports whether any recall may widen, so that a window with
// none reads nothing more for it.
func widening(recalls []Recalled, how map[string]string) bool {
	for _, r := range recalls {
		if widens(r, how) {
			return true
		}
	}
	return false
}
