package fold_test

import (
	"context"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

func shell(cmd string) tcall { return okCall("run_shell", map[string]any{"command": cmd}, "") }

// TestEntityHistory feeds a file's life (written, moved away, written
// again, chmod, its directory removed) and reads what became of it
// before each step.
func TestEntityHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 8000, nil)
	l := newDeltaLog("hist", "keep a cache")
	l.think("Write the cache.", okCall("write_file", map[string]any{"path": "data/a.json", "content": "{}"}, "ok"))
	l.think("Set it aside.", shell("mv ./data/a.json data/a.json.bak"))
	l.think("Start a fresh one.", shell(`echo '{}' > data/a.json`))
	l.think("Keep it private.", shell("chmod 600 data/a.json"))
	l.think("Drop the whole directory.", shell("rm -rf data/"))
	feed(t, eng, l)

	cases := []struct {
		entity       string
		before       int
		last, making string
	}{
		{"data/a.json", 2, "modified at iteration 1", "modified at iteration 1"},
		{"data/a.json", 3, "moved to data/a.json.bak at iteration 2", "modified at iteration 1"},
		{"data/a.json", 5, "mode set to 600 at iteration 4", "created at iteration 3"},
		{"data//a.json", 6, "data deleted at iteration 5", "created at iteration 3"},
		{"data/a.json.bak", 5, "moved from data/a.json at iteration 2", "moved from data/a.json at iteration 2"},
		{"data/a.json.bak", 6, "data deleted at iteration 5", "moved from data/a.json at iteration 2"},
		{"data", 6, "deleted at iteration 5", "deleted at iteration 5"},
	}
	for _, c := range cases {
		last, ok, err := eng.Fold.LastChange(ctx, "hist", c.entity, c.before)
		if err != nil || !ok {
			t.Fatalf("LastChange(%s, before %d): ok=%v err=%v", c.entity, c.before, ok, err)
		}
		if got := last.Describe(c.entity); got != c.last {
			t.Errorf("LastChange(%s, before %d) = %q, want %q", c.entity, c.before, got, c.last)
		}
		making, ok, err := eng.Fold.Making(ctx, "hist", c.entity, c.before)
		if err != nil || !ok {
			t.Fatalf("Making(%s, before %d): ok=%v err=%v", c.entity, c.before, ok, err)
		}
		if got := making.Describe(c.entity); got != c.making {
			t.Errorf("Making(%s, before %d) = %q, want %q", c.entity, c.before, got, c.making)
		}
	}
	if _, ok, err := eng.Fold.LastChange(ctx, "hist", "data/a.json", 1); err != nil || ok {
		t.Errorf("a change before the first: ok=%v err=%v", ok, err)
	}
	if _, ok, err := eng.Fold.LastChange(ctx, "hist", "never/seen.txt", 9); err != nil || ok {
		t.Errorf("an entity never changed: ok=%v err=%v", ok, err)
	}

	// Dynamic's file state names the move's source too, not only its
	// destination.
	states, err := eng.Fold.EntityStates(ctx, "hist", 10)
	if err != nil {
		t.Fatal(err)
	}
	var sawSource bool
	for _, s := range states {
		if s.Entity == "data/a.json" && s.Iteration == 4 && s.Action == "mode set to 600" {
			sawSource = true
		}
	}
	if !sawSource {
		t.Errorf("entity state of data/a.json: %+v", states)
	}
}

// TestEntityHistoryOfAnIterationThatGrew notes an iteration whose second
// call has no result yet, then again with it: its rows are replaced, not
// added twice.
func TestEntityHistoryOfAnIterationThatGrew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 8000, nil)
	l := newDeltaLog("grow", "tidy up")
	l.think("Move the log, then remove the old one.", shell("mv app.log logs/app.log"), tcall{Tool: "run_shell", Args: map[string]any{"command": "rm old.log"}})
	feed(t, eng, l)
	if _, ok, err := eng.Fold.LastChange(ctx, "grow", "old.log", 2); err != nil || ok {
		t.Fatalf("old.log changed before its call returned: ok=%v err=%v", ok, err)
	}
	if _, ok, err := eng.Fold.LastChange(ctx, "grow", "app.log", 2); err != nil || !ok {
		t.Fatalf("the move, whose call returned, is not in the history yet: ok=%v err=%v", ok, err)
	}
	l.emit(journal.TypeActionResult, map[string]any{"action_id": l.callID(1), "status": journal.StatusSuccess, "observation_content": ""})
	feed(t, eng, l)
	for entity, want := range map[string]string{"old.log": "deleted at iteration 1", "app.log": "moved to logs/app.log at iteration 1"} {
		c, ok, err := eng.Fold.LastChange(ctx, "grow", entity, 2)
		if err != nil || !ok || c.Describe(entity) != want {
			t.Errorf("LastChange(%s) = %q, %v, %v; want %q", entity, c.Describe(entity), ok, err, want)
		}
	}
}
