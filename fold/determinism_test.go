package fold_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// foldLive appends a generated run one iteration at a time, stepping the
// scheduler after each, as an agent loop would; with bulk it appends the
// whole run and steps once, as an import does.
func foldLive(t *testing.T, cfg synth.Config, budget int, bulk bool) (*memory.Engine, []*fold.Block) {
	t.Helper()
	ctx := context.Background()
	eng := openEngine(t, budget, nil)
	gen, err := synth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var all []journal.Event
	for {
		evs, ok := gen.Next()
		if !ok {
			break
		}
		if bulk {
			all = append(all, evs...)
			continue
		}
		if _, err := eng.Journal.Append(ctx, cfg.RunID, journal.FormatDelta, evs); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Scheduler.Step(ctx, cfg.RunID); err != nil {
			t.Fatal(err)
		}
	}
	if bulk {
		appendStep(t, eng, cfg.RunID, all)
	}
	return eng, allBlocks(t, eng, cfg.RunID)
}

// appendStep appends events to run and steps the scheduler once.
func appendStep(t *testing.T, eng *memory.Engine, run string, events []journal.Event) {
	t.Helper()
	ctx := context.Background()
	if _, err := eng.Journal.Append(ctx, run, journal.FormatDelta, events); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scheduler.Step(ctx, run); err != nil {
		t.Fatal(err)
	}
}

// allBlocks returns every block of run.
func allBlocks(t *testing.T, eng *memory.Engine, run string) []*fold.Block {
	t.Helper()
	blocks, err := eng.Fold.AllBlocks(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

func blockSummary(bs []*fold.Block) []string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%s L%d %d-%d %s parent=%q visible=%v", b.ID, b.Level, b.First, b.Last, b.Trigger, b.Parent, b.Visible))
	}
	return out
}

func compareBlocks(t *testing.T, what string, a, b []*fold.Block) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d blocks vs %d:\n%q\n%q", what, len(a), len(b), blockSummary(a), blockSummary(b))
	}
	for i := range a {
		// The usage a block records is measured when the fold is decided,
		// on the Dynamic partition too, which shows the runtime's notes of
		// the newest iteration: live, a note that comes after the rest of
		// its iteration is not there yet. It is a measurement, compared
		// apart from what the fold made.
		x, y := *a[i], *b[i]
		if d := x.Usage - y.Usage; d > 0.02 || d < -0.02 {
			t.Errorf("%s: block %s made at usage %.3f vs %.3f", what, x.ID, x.Usage, y.Usage)
		}
		x.Usage, y.Usage = 0, 0
		ja, _ := json.Marshal(x)
		jb, _ := json.Marshal(y)
		if string(ja) != string(jb) {
			t.Fatalf("%s: block %d differs:\n%s\n%s", what, i, ja, jb)
		}
	}
}

func TestSchedulerIsDeterministic(t *testing.T) {
	t.Parallel()
	cfg := synth.Config{Seed: 7, Iterations: 120, RunID: "det", MaxOutputBytes: 3000}
	_, a := foldLive(t, cfg, 4000, false)
	_, b := foldLive(t, cfg, 4000, false)
	if len(a) < 5 {
		t.Fatalf("only %d blocks: %q", len(a), blockSummary(a))
	}
	triggers := map[string]int{}
	for _, blk := range a {
		triggers[blk.Trigger]++
	}
	t.Logf("%d blocks, triggers %v", len(a), triggers)
	compareBlocks(t, "two fresh databases", a, b)
}

// A bulk import is folded as it would have been live, one iteration at a
// time (Scheduler.Step's contract), when every iteration arrives whole.
func TestSchedulerBulkEqualsLive(t *testing.T) {
	t.Parallel()
	cfg := synth.Config{Seed: 11, Iterations: 120, RunID: "bulk", MaxOutputBytes: 3000}
	_, live := foldLive(t, cfg, 4000, false)
	_, bulk := foldLive(t, cfg, 4000, true)
	compareBlocks(t, "live vs bulk", live, bulk)
}

// An iteration that is the first success of a tool stays protected after
// the next step re-notes it (live stepping re-notes the newest iteration).
func TestFirstSuccessSurvivesLiveSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 32000, nil)
	l := newDeltaLog("first-ok", "Read the code.")
	l.think("Look at the parser.", okCall("read_file", map[string]any{"path": "src/a.py"}, "x = 1\n"))
	feed(t, eng, l)
	l.think("Look at the lexer.", okCall("read_file", map[string]any{"path": "src/b.py"}, "y = 2\n"))
	feed(t, eng, l)
	l.think("List the tests.", okCall("list_dir", map[string]any{"path": "tests"}, "test_a.py\n"))
	run, _ := feed(t, eng, l)
	notes, err := eng.Fold.Notes(ctx, run.ID, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fold.ProtectFirstOK, "", fold.ProtectFirstOK}
	for i, n := range notes {
		if n.Protect != want[i] {
			t.Errorf("iteration %d: protect %q, want %q", n.Number, n.Protect, want[i])
		}
	}
}

// A step that stops between noting an iteration and deciding after it (a
// writer killed, a deadline passed), or half way through deciding, leaves
// the rest of that decision to the next step, which makes it: the run
// folds as it would have in one step.
func TestAStepCutBeforeItsDecisionIsFinishedByTheNext(t *testing.T) {
	t.Parallel()
	cfg := synth.Config{Seed: 11, Iterations: 120, RunID: "cut", MaxOutputBytes: 3000}
	_, whole := foldLive(t, cfg, 4000, true)
	// The first pressure fold, cut before anything of its decision; and
	// the first iteration after which two folds were made, cut between
	// them (the window is measured again after each fold).
	first, twice := 0, 0
	made := map[int]int{}
	for _, b := range whole {
		if b.Trigger == fold.TriggerPressure && first == 0 {
			first = b.CreatedIter
		}
		if made[b.CreatedIter]++; made[b.CreatedIter] == 2 && (twice == 0 || b.CreatedIter < twice) {
			twice = b.CreatedIter
		}
	}
	if first == 0 || twice == 0 {
		t.Fatalf("no decision to cut: %q", blockSummary(whole))
	}
	cuts := []struct{ at, call int }{{first, 1}, {twice, 2}}
	// And, spread over the run, a few more iterations that folded, cut at
	// their first to third measure: the scheduler measures the window
	// when it starts to decide and after each trigger that folded, so
	// every cut falls between two triggers.
	var folded []int
	for at := range made {
		// A step cut after the last iteration leaves its decision to the
		// step that notes the next one, which this run has not.
		if at < cfg.Iterations {
			folded = append(folded, at)
		}
	}
	slices.Sort(folded)
	for i := 0; i < len(folded); i += max(1, len(folded)/6) {
		cuts = append(cuts, struct{ at, call int }{folded[i], 1 + i%3})
	}
	ran := 0
	for _, c := range cuts {
		cut, ok := cutStep(t, cfg, c.at, c.call)
		if !ok {
			continue // the decision measured fewer times
		}
		ran++
		compareBlocks(t, fmt.Sprintf("cut at measure %d after iteration %d vs one step", c.call, c.at), whole, cut)
	}
	if ran < len(cuts)/2 {
		t.Fatalf("only %d of the %d cuts %v came: the decisions measure the window less often than the test expects", ran, len(cuts), cuts)
	}
	t.Logf("%d cuts of %d", ran, len(cuts))
}

// cutStep imports the run of cfg and steps the scheduler, failing the
// call-th measure of the window made after iteration at, then steps it
// again, and returns the blocks; ok is false when the step measured fewer
// times after that iteration, and was not cut.
func cutStep(t *testing.T, cfg synth.Config, at, call int) (blocks []*fold.Block, ok bool) {
	t.Helper()
	ctx := context.Background()
	eng := openEngine(t, 4000, nil)
	measure, calls := eng.Scheduler.MeasureEnds, 0
	eng.Scheduler.MeasureEnds = func(ctx context.Context, run journal.Run) (fold.Ends, error) {
		if run.Iterations == at {
			if calls++; calls == call {
				return fold.Ends{}, context.DeadlineExceeded
			}
		}
		return measure(ctx, run)
	}
	gen, err := synth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var all []journal.Event
	for evs, ok := gen.Next(); ok; evs, ok = gen.Next() {
		all = append(all, evs...)
	}
	if _, err := eng.Journal.Append(ctx, cfg.RunID, journal.FormatDelta, all); err != nil {
		t.Fatal(err)
	}
	switch _, err := eng.Scheduler.Step(ctx, cfg.RunID); {
	case err == nil && calls < call:
		return nil, false
	case !errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("the step cut at measure %d after iteration %d returned %v, want the deadline it was given", call, at, err)
	}
	if _, err := eng.Scheduler.Step(ctx, cfg.RunID); err != nil {
		t.Fatal(err)
	}
	return allBlocks(t, eng, cfg.RunID), true
}

// A step cut after the newest iteration leaves its decision to the step
// that notes the next one: a step with nothing to note leaves it alone
// (another process may still be making it), and the run still folds as
// it would have in one step.
func TestACutDecisionWaitsForTheNextIteration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := synth.Config{Seed: 11, Iterations: 120, RunID: "wait", MaxOutputBytes: 3000}
	_, whole := foldLive(t, cfg, 4000, true)
	at := 0
	for _, b := range whole {
		if b.Trigger == fold.TriggerPressure && b.CreatedIter < cfg.Iterations {
			at = max(at, b.CreatedIter)
		}
	}
	if at == 0 {
		t.Fatalf("no pressure fold before the last iteration: %q", blockSummary(whole))
	}
	eng := openEngine(t, 4000, nil)
	measure, cut := eng.Scheduler.MeasureEnds, false
	eng.Scheduler.MeasureEnds = func(ctx context.Context, run journal.Run) (fold.Ends, error) {
		if run.Iterations == at && !cut {
			cut = true
			return fold.Ends{}, context.DeadlineExceeded
		}
		return measure(ctx, run)
	}
	gen, err := synth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var before, after []journal.Event
	for i := 1; ; i++ {
		evs, ok := gen.Next()
		if !ok {
			break
		}
		if i <= at {
			before = append(before, evs...)
		} else {
			after = append(after, evs...)
		}
	}
	if _, err := eng.Journal.Append(ctx, cfg.RunID, journal.FormatDelta, before); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scheduler.Step(ctx, cfg.RunID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the step cut after iteration %d returned %v, want the deadline it was given", at, err)
	}
	res, err := eng.Scheduler.Step(ctx, cfg.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) != 0 || res.Noted != 0 {
		t.Fatalf("a step with nothing to note noted %d iterations and folded %d blocks, want none", res.Noted, len(res.Folds))
	}
	appendStep(t, eng, cfg.RunID, after)
	compareBlocks(t, fmt.Sprintf("cut after iteration %d, decided when the next came, vs one step", at), whole, allBlocks(t, eng, cfg.RunID))
}
