package memory

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// recallText renders one range, as recallTexts does a batch.
func (e *Engine) recallText(ctx context.Context, run journal.Run, first, last int, wantFull, keep, visible bool) (recallRender, error) {
	rts, err := e.recallTexts(ctx, run, [][2]int{{first, last}}, wantFull, keep, visible)
	if err != nil {
		return recallRender{}, err
	}
	return rts[0], nil
}

// TestRecallTextsReadsAsOneRangeAtATime renders many ranges of a folded
// run at once, as a fill does, and each alone: the texts agree, for lone
// iterations and ranges, ranges that overlap, one too long to show in
// full and one past the run's end, with and without the iterations shown
// in full.
func TestRecallTextsReadsAsOneRangeAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, err := Open(ctx, Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Sync(ctx, SyncOptions{Journal: "testdata/journals/synth-400.jsonl", KeepRecent: DefaultKeepRecent})
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.Journal.Run(ctx, res.Import.Run)
	if err != nil {
		t.Fatal(err)
	}
	var ranges [][2]int
	for n := 1; n <= run.Iterations; n += 7 {
		ranges = append(ranges, [2]int{n, n}, [2]int{n + 1, n + 3})
	}
	ranges = append(ranges, [2]int{40, 52}, [2]int{41, 41}, [2]int{run.Iterations - 2, run.Iterations + 5})
	for _, c := range []struct{ wantFull, visible bool }{{true, true}, {true, false}, {false, true}} {
		all, err := e.recallTexts(ctx, run, ranges, c.wantFull, false, c.visible)
		if err != nil {
			t.Fatal(err)
		}
		inFull := 0
		for i, r := range ranges {
			one, err := e.recallText(ctx, run, r[0], r[1], c.wantFull, false, c.visible)
			if err != nil {
				t.Fatal(err)
			}
			if all[i] != one {
				t.Fatalf("%+v: range %d-%d renders\n%+v\nin a batch, and\n%+v\nalone", c, r[0], r[1], all[i], one)
			}
			if one.full != "" {
				inFull++
			}
		}
		if c.wantFull && inFull < len(ranges)/2 {
			t.Fatalf("%+v: %d of %d ranges render in full; the test needs folded ranges", c, inFull, len(ranges))
		}
	}
}
