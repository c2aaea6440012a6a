package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// copyFixture is a SQLite engine holding two folded runs, the second with
// an explicit recall and a bookmark.
func copyFixture(t *testing.T) *memory.Engine {
	t.Helper()
	ctx := context.Background()
	src := mustOpen(t, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 6000})
	for i, id := range []string{"first", "second"} {
		events, err := synth.Events(synth.Config{Seed: uint64(20 + i), Iterations: 150, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := src.Append(ctx, id, events...); err != nil {
			t.Fatal(err)
		}
	}
	run, err := src.Journal.Run(ctx, "second")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Retrieve(ctx, run, recall.Query{Keywords: []string{"failing test"}}); err != nil {
		t.Fatal(err)
	}
	if err := src.Fold.AddBookmark(ctx, run, 12, "the first failure"); err != nil {
		t.Fatal(err)
	}
	return src
}

// copyAround copies src into a new database at target and back into a new
// SQLite file, checking at each step that Copy reports every run copied
// and that a second Copy changes nothing.
func copyAround(t *testing.T, src *memory.Engine, target string) {
	t.Helper()
	ctx := context.Background()
	mid := mustOpen(t, memory.Config{DBPath: target, Budget: 6000, IndexDir: filepath.Join(t.TempDir(), "index.bleve")})
	back := mustOpen(t, memory.Config{DBPath: filepath.Join(t.TempDir(), "back.db"), Budget: 6000})
	for _, hop := range [][2]*memory.Engine{{src, mid}, {mid, back}} {
		for pass, want := range []string{"copied", "unchanged"} {
			done, err := memory.Copy(ctx, hop[0], hop[1], memory.CopyOptions{}, nil)
			if err != nil {
				t.Fatalf("pass %d: %v", pass, err)
			}
			if len(done) != 2 {
				t.Fatalf("pass %d: %d runs copied, want 2", pass, len(done))
			}
			for _, c := range done {
				if c.Action != want || c.Rows["events"] == 0 || c.Rows["blocks"] == 0 || c.WindowTokens == 0 {
					t.Fatalf("pass %d: %+v, want %s with rows and a window", pass, c, want)
				}
			}
		}
	}
	if c := copiedRows(t, back, "second"); c["recalls"] == 0 || c["bookmarks"] != 1 {
		t.Fatalf("the round trip lost the recalls or the bookmark: %v", c)
	}
	latest, err := back.Journal.LatestRun(ctx)
	if err != nil || latest.ID != "second" {
		t.Fatalf("the copy's latest run is %q (%v), want the source's, second", latest.ID, err)
	}
	// The copy goes on like the source: the same next step gives the same
	// window on both.
	more, err := synth.Events(synth.Config{Seed: 21, Iterations: 170, RunID: "second"})
	if err != nil {
		t.Fatal(err)
	}
	var windows []string
	for _, e := range []*memory.Engine{src, back} {
		if _, _, err := e.Append(ctx, "second", more...); err != nil {
			t.Fatal(err)
		}
		run, err := e.Journal.Run(ctx, "second")
		if err != nil {
			t.Fatal(err)
		}
		cw, err := e.Context(ctx, run, memory.ContextOptions{Native: 5})
		if err != nil {
			t.Fatal(err)
		}
		windows = append(windows, cw.Markdown())
	}
	if windows[0] != windows[1] {
		i := firstDiff(windows[0], windows[1])
		t.Fatalf("after the copy, one more step gives another window at byte %d:\nsource: %q\ncopy:   %q", i, around(windows[0], i), around(windows[1], i))
	}
	// The round trip's end moved on: copying the older middle over it is
	// refused, --replace or not, since it would lose events; copying the
	// newer end over the middle is a conflict that --replace settles.
	for _, replace := range []bool{false, true} {
		if _, err := memory.Copy(ctx, mid, back, memory.CopyOptions{Runs: []string{"second"}, Replace: replace}, nil); !errors.Is(err, memory.ErrCopyConflict) || !strings.Contains(err.Error(), "ahead there") {
			t.Fatalf("copying an older run over a newer one (replace %v): %v, want ErrCopyConflict", replace, err)
		}
	}
	if _, err := memory.Copy(ctx, back, mid, memory.CopyOptions{Runs: []string{"second"}}, nil); !errors.Is(err, memory.ErrCopyConflict) {
		t.Fatalf("copying a newer run over an older one: %v, want ErrCopyConflict", err)
	}
	done, err := memory.Copy(ctx, back, mid, memory.CopyOptions{Runs: []string{"second"}, Replace: true}, nil)
	if err != nil || len(done) != 1 || done[0].Action != "replaced" {
		t.Fatalf("replace: %+v, %v", done, err)
	}
}

// A run without events copies, and two engines with different settings
// are refused before anything is written.
func TestCopyEdgeCases(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := mustOpen(t, memory.Config{DBPath: filepath.Join(dir, "src.db"), Budget: 6000})
	// An append of no events makes the run (an import of a transcript
	// without messages is refused).
	if _, err := src.Journal.Append(ctx, "empty", journal.FormatOpenAI, nil); err != nil {
		t.Fatal(err)
	}
	other := mustOpen(t, memory.Config{DBPath: filepath.Join(dir, "other.db"), Budget: 8000})
	if _, err := memory.Copy(ctx, src, other, memory.CopyOptions{}, nil); !errors.Is(err, memory.ErrCopySettings) {
		t.Fatalf("copy between budgets 6000 and 8000: %v, want ErrCopySettings", err)
	}
	dst := mustOpen(t, memory.Config{DBPath: filepath.Join(dir, "dst.db"), Budget: 6000})
	runs, err := src.Journal.Runs(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the source holds %v (%v), want the run without events", runs, err)
	}
	done, err := memory.Copy(ctx, src, dst, memory.CopyOptions{}, nil)
	if err != nil || len(done) != 1 || done[0].Action != "copied" {
		t.Fatalf("copy a run without events: %+v, %v", done, err)
	}
}

func copiedRows(t *testing.T, e *memory.Engine, run string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"recalls", "bookmarks"} {
		var n int
		if err := e.Journal.DB().Read.GetContext(context.Background(), &n, `SELECT COUNT(*) FROM `+table+` WHERE run_id = ?`, run); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func TestCopySQLiteToSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("folds two runs of 150 iterations")
	}
	copyAround(t, copyFixture(t), filepath.Join(t.TempDir(), "mid.db"))
}

func TestCopyThroughPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("folds two runs of 150 iterations")
	}
	url := pgtest.URL(t)
	copyAround(t, copyFixture(t), url)
}

// A copy that would not hold the source's rows (text PostgreSQL cannot
// hold as it is) is refused before its commit: the destination keeps
// nothing of it. A source open with one connection does not hang the copy.
func TestCopyIsCheckedBeforeItCommits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	src := mustOpen(t, memory.Config{DBPath: filepath.Join(dir, "src.db"), Budget: 6000, OneConnection: true})
	events, err := synth.Events(synth.Config{Seed: 40, Iterations: 20, RunID: "nul"})
	if err != nil {
		t.Fatal(err)
	}
	events[0].Payload = json.RawMessage(`{"run_id":"nul","task":"a task with a NUL \u0000 in it"}`)
	if _, _, err := src.Append(ctx, "nul", events...); err != nil {
		t.Fatal(err)
	}
	lite := mustOpen(t, memory.Config{DBPath: filepath.Join(dir, "dst.db"), Budget: 6000})
	if done, err := memory.Copy(ctx, src, lite, memory.CopyOptions{}, nil); err != nil || len(done) != 1 {
		t.Fatalf("copy to SQLite from a source of one connection: %+v, %v", done, err)
	}
	pg := mustOpen(t, memory.Config{DBPath: pgtest.URL(t), Budget: 6000, IndexDir: filepath.Join(dir, "index")})
	_, err = memory.Copy(ctx, src, pg, memory.CopyOptions{}, nil)
	if err == nil || !strings.Contains(err.Error(), "table runs would hold other values") {
		t.Fatalf("copy of a NUL to PostgreSQL: %v, want it refused naming the table", err)
	}
	if _, err := pg.Journal.Run(ctx, "nul"); !errors.Is(err, journal.ErrRunNotFound) {
		t.Fatalf("the refused copy left the run behind: %v", err)
	}
}
