package window

import (
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
)

// TestTimelineShowsBlocksWhereTheirIterationsWere: a Short-term block made
// since the summaries were last laid out (Section.at > 0) is written in the
// timeline, in its first iteration's place (after the recalls placed
// before it, before those placed at or after it), under Working's heading;
// a block laid out before stays in Short-term. In the messages form the
// first is a user message of its own and the second is in the folded
// memory's system message.
func TestTimelineShowsBlocksWhereTheirIterationsWere(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	working, _ := workingOf(f, 5, 5)
	for i := range working.Sections {
		working.Sections[i].at = i + 4 // iterations 1-3 are folded
		working.Sections[i].Messages = assistantMessages("step")
	}
	short := Partition{Name: ShortTerm, Sections: []Section{
		{Name: "L1 1-1", Source: "block:old", Content: "[L1 · iteration 0] laid out before"},
		{Name: "L1 1-3", Source: "block:new", Content: "[L1 · iterations 1–3] folded since", at: 1, made: 4},
	}}
	var retrieved Partition
	var omitted []string
	f.fitTimeline(&retrieved, newestFirst(recallOf(7, 5, 10), recallOf(8, 8, 10)), fixedRoom(1000, 1000, 5), 4, 8, &omitted)
	retrieved.Name = Retrieved
	if len(retrieved.Sections) != 2 || retrieved.Sections[0].at != 0 || retrieved.Sections[1].at != 3 {
		t.Fatalf("recalls placed at %+v, want at 0 and 3", retrieved.Sections)
	}
	parts := []Partition{short, working, retrieved}
	md, spans := renderMarkdown(parts, true)
	order := []string{"## Short-term memory\n", "laid out before", "## Working memory\n", "### Iteration 7 (",
		"folded since", "### Iteration 8 (", "#### Iteration 1 (", "#### Iteration 2 ("} // workingOf numbers its iterations from 1
	inOrder(t, md, order)
	if strings.Count(md, "folded since") != 1 {
		t.Fatalf("the block in the timeline is written twice:\n%s", md)
	}
	var blockSpan span
	for _, s := range spans {
		if s.source == "block:new" {
			blockSpan = s
		}
	}
	if blockSpan.partition != ShortTerm {
		t.Fatalf("the block's span is %+v, want it in short_term", blockSpan)
	}
	msgs := renderMessages(parts, true)
	if got := rolesOf(msgs); got != "system user user user assistant assistant" {
		t.Fatalf("messages: %s", got)
	}
	if mem := *msgs[0].Content; !strings.Contains(mem, "laid out before") || strings.Contains(mem, "folded since") {
		t.Fatalf("folded memory's system message: %q", mem)
	}
	if got := *msgs[2].Content; got != "[L1 · iterations 1–3] folded since" {
		t.Fatalf("the block's message: %q", got)
	}
	// Markdown alone: the block is counted once, with its framing, and
	// Short-term's heading only for the block laid out before.
	alone := Partition{Name: ShortTerm, Sections: short.Sections[1:]}
	if got, want := f.cost(&alone), f.sectionCost(ShortTerm, &alone.Sections[0])+timelineFraming; got != want {
		t.Fatalf("a Short-term of one block in the timeline costs %d, want %d (no heading)", got, want)
	}
}

// TestTimelineRoomFollowsWhatEachStepHeld: the recalls' room at a step is
// what the timeline held then: an iteration from the step it left the
// caller's window until the fold that took it, and the fold's block from
// the step that made it; the room at each step does not depend on what
// came after it.
func TestTimelineRoomFollowsWhatEachStepHeld(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	const native, base = 2, 5000
	working, _ := workingOf(f, 40) // iteration 1, renumbered 6 below
	working.Sections[0].at = 6
	block := Section{Name: "L1 3-4", Source: "block:b", Content: "[L1 · iterations 3–4] short", made: 8, at: 3}
	block.Tokens = f.count(block.Content)
	folded := []fold.Size{{Number: 3, L0Tokens: 300}, {Number: 4, L0Tokens: 200, MsgTokens: 260}}
	made := map[int]int{3: 8, 4: 8}
	room := f.newTimelineRoom(working, []Section{block}, made, folded, 1<<20, 0, base, native, 20, 0)
	one := func(tokens, msg int) int {
		s := Section{Tokens: tokens}
		return f.sectionCost(Working, &s) + max(0, msg-tokens)
	}
	three, four := one(300, 0), one(200, 260)
	six := one(working.Sections[0].Tokens, 0)
	blockCost := f.sectionCost(ShortTerm, &block) + timelineFraming
	cases := []struct{ step, held int }{
		{4, 0},                         // iteration 3 still in the caller's window
		{5, three},                     // 3 in Working
		{7, three + four},              // 3 and 4; 6 shows from step 8
		{8, blockCost + six},           // the fold at 8: its block, and 6
		{20, blockCost + six},          // now
		{native + 1, 0},                // before anything left the caller's window
		{6 + native - 1, three + four}, // the step before 6 leaves it
	}
	for _, c := range cases {
		want := base
		if c.held > 0 {
			want -= c.held + room.fixed
		}
		if got := room.steady(c.step); got != want {
			t.Errorf("room at step %d: %d, want %d (held %d)", c.step, got, want, c.held)
		}
	}
}

// TestAFoldLaysTheRecallsAfterItOutAgain: a fold made at a step changes the
// window from its block on, so the recalls placed after the block are laid
// out again there, within half the room, as when the window is laid out:
// one made before the fold and placed after its block leaves, which leaves
// room for the two recalls made after, where without it the newer of those
// would push the other out. The recall placed before the block stays.
func TestAFoldLaysTheRecallsAfterItOutAgain(t *testing.T) {
	t.Parallel()
	f := timelineFitter(t)
	recalls := newestFirst(recallOf(1, 2, 280), recallOf(2, 5, 280), recallOf(3, 6, 280), recallOf(4, 7, 280))
	shown := func(folds []foldAt) string {
		room := fixedRoom(2000, 1000, 0)
		room.folds = folds
		var p Partition
		var omitted []string
		f.fitTimeline(&p, recalls, room, 1, 8, &omitted)
		return shownSources(p)
	}
	without := shown(nil)
	with := shown([]foldAt{{made: 6, at: 4}})
	if with == without {
		t.Fatalf("the fold changed nothing: %s", with)
	}
	for _, want := range []string{"recall:1", "recall:3", "recall:4"} {
		if !strings.Contains(with, want) {
			t.Errorf("after the fold, %s should show: %s", want, with)
		}
	}
	if strings.Contains(with, "recall:2") {
		t.Errorf("recall:2, made before the fold and placed after its block, should have left: %s", with)
	}
}
