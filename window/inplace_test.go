package window_test

import (
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/window"
)

// TestFoldsStandWhereTheirIterationsWere replays a generated run as sync
// does, the 5 newest iterations left to the caller, and checks at every
// call that a fold which makes no chapter and no cascade leaves the window
// unchanged up to Working's heading (the summaries and the run's state stay
// in the prefix a prompt cache keeps), and that its block is shown in the
// timeline, after that heading, rather than at Short-term's end. The
// blocks made up to the newest chapter or cascade are in Short-term, and
// the window's JSON says which are in the timeline (in_timeline).
func TestFoldsStandWhereTheirIterationsWere(t *testing.T) {
	t.Parallel()
	const heading = "## Working memory\n"
	prev := ""
	kept, inTimeline := 0, 0
	replaySync(t, 33, func(i int, up memory.Step, cx *window.Context, blocks []*fold.Block) {
		md := cx.Markdown()
		laidOut := laidOutAt(blocks)
		at := strings.Index(md, heading)
		for _, b := range blocks {
			if b.Level >= fold.L3 {
				continue
			}
			head, _, _ := strings.Cut(b.Content, "\n")
			k := strings.Index(md, head+"\n")
			switch {
			case k < 0:
				// Cut to fit: the window reports it (window_test).
			case b.CreatedIter > laidOut && (at < 0 || k < at):
				t.Fatalf("iteration %d: block %s, made at %d after the newest chapter (%d), is not in the timeline:\n%s", i, b.ID, b.CreatedIter, laidOut, md)
			case b.CreatedIter <= laidOut && at >= 0 && k > at:
				t.Fatalf("iteration %d: block %s, made at %d by the newest chapter (%d), is in the timeline", i, b.ID, b.CreatedIter, laidOut)
			case b.CreatedIter > laidOut:
				inTimeline++
			}
		}
		made := map[string]int{}
		for _, b := range blocks {
			made["block:"+b.ID] = b.CreatedIter
		}
		for _, sec := range cx.Partitions[2].Sections {
			if want := made[sec.Source] > laidOut; sec.InTimeline != want {
				t.Fatalf("iteration %d: %s in_timeline %v, want %v (made at %d, newest chapter %d)", i, sec.Source, sec.InTimeline, want, made[sec.Source], laidOut)
			}
		}
		relaid := false
		for _, f := range up.Fold.Folds {
			relaid = relaid || f.Level >= fold.L3
		}
		if len(up.Fold.Folds) > 0 && !relaid && prev != "" && at >= 0 {
			cut := strings.Index(prev, heading)
			if cut < 0 || !strings.HasPrefix(md, prev[:cut+len(heading)]) {
				t.Fatalf("iteration %d: folds %+v made no chapter, yet the window changed before Working:\nbefore:\n%s\nafter:\n%s", i, up.Fold.Folds, prev, md)
			}
			kept++
		}
		prev = md
	})
	t.Logf("%d folds kept the summaries in place; blocks in the timeline %d times", kept, inTimeline)
	if kept < 30 || inTimeline < 100 {
		t.Fatalf("the run did not exercise folds in place: %d folds kept the summaries, blocks in the timeline %d times", kept, inTimeline)
	}
}
