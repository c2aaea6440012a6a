package memory_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// mustOpen opens an engine on cfg, closed when the test ends.
func mustOpen(t *testing.T, cfg memory.Config) *memory.Engine {
	t.Helper()
	e, err := memory.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// openBoth opens an engine on a new SQLite file and one on a new
// PostgreSQL database, with the same settings.
func openBoth(t *testing.T, budget int) (lite, pg *memory.Engine) {
	t.Helper()
	url := pgtest.URL(t)
	lite = mustOpen(t, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: budget})
	pg = mustOpen(t, memory.Config{DBPath: url, Budget: budget, IndexDir: filepath.Join(t.TempDir(), "index.bleve")})
	return lite, pg
}

// byIteration splits a journal's events before each THOUGHT: what an
// agent's runtime appends between two LLM calls.
func byIteration(events []journal.Event) [][]journal.Event {
	var out [][]journal.Event
	start := 0
	for i, e := range events {
		if e.Type == journal.TypeThought && i > start {
			out = append(out, events[start:i])
			start = i
		}
	}
	return append(out, events[start:])
}

// The same journal gives a byte-identical window on both backends at every
// iteration of a long run: folds, implicit and error-driven recalls, and
// the timeline alike; and an explicit recall finds the same iterations.
//
// Explicit recalls are made on both but the windows are compared before
// them: BM25 takes a field's mean length per index segment, and bleve
// merges segments in the background, so hits of nearly equal scores can
// swap places between two builds of one index on either backend (two
// SQLite engines fed the same way do it too). What each finds is the same:
// a recall of a file named in fewer iterations than its limit finds all of
// them, whatever their order.
func TestPostgresWindowMatchesSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 250 iterations on two backends")
	}
	ctx := context.Background()
	lite, pg := openBoth(t, 6000)
	events, err := synth.Events(synth.Config{Seed: 5, Iterations: 250, RunID: "fleet"})
	if err != nil {
		t.Fatal(err)
	}
	steps := byIteration(events)
	compared := 0
	for i, step := range steps {
		var runs [2]journal.Run
		var windows, found [2]string
		for k, e := range []*memory.Engine{lite, pg} {
			if _, _, err := e.Append(ctx, "fleet", step...); err != nil {
				t.Fatalf("iteration %d on %s: %v", i, e.Path(), err)
			}
			run, err := e.Journal.Run(ctx, "fleet")
			if err != nil {
				t.Fatal(err)
			}
			cw, err := e.Context(ctx, run, memory.ContextOptions{Native: 5})
			if err != nil {
				t.Fatal(err)
			}
			runs[k], windows[k] = run, cw.Markdown()
			if i%50 == 49 {
				hits, err := e.Retrieve(ctx, run, recall.Query{Keywords: []string{"replay_batch.py"}, DryRun: true, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				found[k] = foundIterations(hits)
			}
		}
		if i%50 == 49 && (found[0] != found[1] || found[0] == "[]") {
			t.Fatalf("step %d: an explicit recall finds %s on SQLite, %s on PostgreSQL", i, found[0], found[1])
		}
		if runs[0].Iterations != runs[1].Iterations || runs[0].LastSeq != runs[1].LastSeq {
			t.Fatalf("step %d: SQLite has %d iterations (seq %d), PostgreSQL %d (seq %d)", i, runs[0].Iterations, runs[0].LastSeq, runs[1].Iterations, runs[1].LastSeq)
		}
		if windows[0] != windows[1] {
			t.Fatalf("step %d (iteration %d): the windows differ first at byte %d:\nSQLite:     %q\nPostgreSQL: %q", i, runs[0].Iterations,
				firstDiff(windows[0], windows[1]), around(windows[0], firstDiff(windows[0], windows[1])), around(windows[1], firstDiff(windows[0], windows[1])))
		}
		compared++
	}
	lb, err := lite.Fold.VisibleBlocks(ctx, "fleet")
	if err != nil {
		t.Fatal(err)
	}
	if len(lb) == 0 {
		t.Fatal("the run never folded: the comparison proves little")
	}
	t.Logf("%d windows compared, %d blocks visible at the end", compared, len(lb))
}

// foundIterations lists the iterations hits matched, in order of number.
func foundIterations(hits []memory.Retrieved) string {
	var ns []int
	for _, h := range hits {
		for n := h.Matched[0]; n <= h.Matched[1]; n++ {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return fmt.Sprint(ns)
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func around(s string, i int) string {
	return s[max(0, i-80):min(len(s), i+120)]
}

// Four workers writing at once, each to its own run and all four to a
// shared one, lose nothing: every event is stored once, and every run
// folds and indexes as it would alone.
func TestPostgresConcurrentWritersLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("four writers on one database")
	}
	ctx := context.Background()
	url := pgtest.URL(t)
	shared, err := synth.Events(synth.Config{Seed: 9, Iterations: 60, RunID: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	sharedSteps := byIteration(shared)
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			errs <- func() error {
				e, err := memory.Open(ctx, memory.Config{DBPath: url, Budget: 4000, IndexDir: filepath.Join(t.TempDir(), "index.bleve")})
				if err != nil {
					return err
				}
				defer e.Close()
				own, err := synth.Events(synth.Config{Seed: uint64(w + 1), Iterations: 60, RunID: fmt.Sprintf("worker%d", w)})
				if err != nil {
					return err
				}
				for i, step := range byIteration(own) {
					if _, _, err := e.Append(ctx, fmt.Sprintf("worker%d", w), step...); err != nil {
						return fmt.Errorf("worker %d, own run, step %d: %w", w, i, err)
					}
					// Every worker sends the shared run's steps up to here
					// again, as several syncs of one journal would.
					upTo := min(len(sharedSteps), i+1)
					var batch []journal.Event
					for _, s := range sharedSteps[:upTo] {
						batch = append(batch, s...)
					}
					if _, _, err := e.Append(ctx, "shared", batch...); err != nil {
						return fmt.Errorf("worker %d, shared run, step %d: %w", w, i, err)
					}
				}
				return nil
			}()
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	check := mustOpen(t, memory.Config{DBPath: url, Budget: 4000, IndexDir: filepath.Join(t.TempDir(), "index.bleve")})
	alone := mustOpen(t, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 4000})
	for w := 0; w < 4; w++ {
		id := fmt.Sprintf("worker%d", w)
		own, _ := synth.Events(synth.Config{Seed: uint64(w + 1), Iterations: 60, RunID: id})
		for _, step := range byIteration(own) {
			if _, _, err := alone.Append(ctx, id, step...); err != nil {
				t.Fatal(err)
			}
		}
		sameRun(t, check, alone, id)
	}
	for _, step := range sharedSteps {
		if _, _, err := alone.Append(ctx, "shared", step...); err != nil {
			t.Fatal(err)
		}
	}
	sameRun(t, check, alone, "shared")
}

// sameRun checks that run holds the same events and iterations on got as
// on want, and builds the same window from them.
func sameRun(t *testing.T, got, want *memory.Engine, id string) {
	t.Helper()
	ctx := context.Background()
	g, err := got.Journal.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.Journal.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Events != w.Events || g.LastSeq != w.LastSeq || g.Iterations != w.Iterations {
		t.Fatalf("run %s: %d events (seq %d), %d iterations; alone: %d (seq %d), %d", id, g.Events, g.LastSeq, g.Iterations, w.Events, w.LastSeq, w.Iterations)
	}
	var n int
	if err := got.Journal.DB().Read.GetContext(ctx, &n, `SELECT COUNT(*) FROM events WHERE run_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if int64(n) != w.Events {
		t.Fatalf("run %s: %d event rows, want %d", id, n, w.Events)
	}
	gw, err := got.Context(ctx, g, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ww, err := want.Context(ctx, w, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gw.Markdown() != ww.Markdown() {
		i := firstDiff(gw.Markdown(), ww.Markdown())
		t.Fatalf("run %s: the window differs from the run's alone at byte %d:\nfleet: %q\nalone: %q", id, i, around(gw.Markdown(), i), around(ww.Markdown(), i))
	}
	if !strings.Contains(gw.Markdown(), "## Working memory") {
		t.Fatalf("run %s: no working memory in\n%s", id, gw.Markdown())
	}
}

// envKilledWriter makes the test binary a writer that the test kills,
// writing a run of killedIterations.
const (
	envKilledWriter  = "DELTA_TEST_KILLED_WRITER"
	envKilledIndex   = "DELTA_TEST_KILLED_INDEX"
	killedIterations = 800
)

// TestPostgresKilledWriterHelper is the writer TestPostgresKilledWriter
// kills: it appends a long run in one call, and says when it starts.
func TestPostgresKilledWriterHelper(t *testing.T) {
	url := os.Getenv(envKilledWriter)
	if url == "" {
		t.Skip("run by TestPostgresKilledWriterLeavesNothingHalfWritten")
	}
	ctx := context.Background()
	// Its index goes in the killing test's directory: a killed process
	// removes none of its own.
	e := mustOpen(t, memory.Config{DBPath: url, Budget: 4000, IndexDir: os.Getenv(envKilledIndex)})
	events, err := synth.Events(synth.Config{Seed: 3, Iterations: killedIterations, RunID: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("appending")
	if _, _, err := e.Append(ctx, "killed", events...); err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
}

// A writer killed half way through an append leaves nothing of it, and
// the run's lock to the next writer, which finds the run as if the killed
// one had never begun.
func TestPostgresKilledWriterLeavesNothingHalfWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a writer process")
	}
	// Killed early, the writer is in its append's transaction; later, in
	// the folds that follow it.
	for _, after := range []time.Duration{30 * time.Millisecond, 700 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) { killWriter(t, after) })
	}
}

// killWriter starts a writer, kills it after the given time, and checks
// what it left.
func killWriter(t *testing.T, after time.Duration) {
	ctx := context.Background()
	url := pgtest.URL(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPostgresKilledWriterHelper$", "-test.v")
	cmd.Env = append(os.Environ(), envKilledWriter+"="+url, envKilledIndex+"="+filepath.Join(t.TempDir(), "index.bleve"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "appending" {
	}
	time.Sleep(after)
	cmd.Process.Kill()
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	cmd.Wait()
	if strings.Contains(rest.String(), "done") {
		t.Skip("the writer finished before it was killed: this machine is too fast for the test's timing")
	}

	e := mustOpen(t, memory.Config{DBPath: url, Budget: 4000, IndexDir: filepath.Join(t.TempDir(), "index.bleve"), LockWait: 5 * time.Second})
	// Each write is one transaction: the events are all there or none are,
	// and the run's counters say what its rows hold.
	all, err := synth.Events(synth.Config{Seed: 3, Iterations: killedIterations, RunID: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	var n, iters int
	if err := e.Journal.DB().Read.GetContext(ctx, &n, `SELECT COUNT(*) FROM events WHERE run_id = 'killed'`); err != nil {
		t.Fatal(err)
	}
	if err := e.Journal.DB().Read.GetContext(ctx, &iters, `SELECT COUNT(*) FROM iterations WHERE run_id = 'killed'`); err != nil {
		t.Fatal(err)
	}
	switch run, err := e.Journal.Run(ctx, "killed"); {
	case n == 0 && errors.Is(err, journal.ErrRunNotFound):
		t.Log("killed while it appended: nothing of it is stored")
	case n == len(all) && err == nil && run.Events == int64(n) && run.Iterations == iters:
		t.Logf("killed after its append committed (%d events), while it folded", n)
	default:
		t.Fatalf("half written: %d event rows of %d, %d iteration rows, run %+v (%v)", n, len(all), iters, run, err)
	}
	// The next writer gets the run's lock, finishes the work, and the run
	// ends as it would had nobody been killed.
	if _, _, err := e.Append(ctx, "killed", all...); err != nil {
		t.Fatalf("the next writer: %v", err)
	}
	alone := mustOpen(t, memory.Config{DBPath: filepath.Join(t.TempDir(), "memory.db"), Budget: 4000})
	if _, _, err := alone.Append(ctx, "killed", all...); err != nil {
		t.Fatal(err)
	}
	sameRun(t, e, alone, "killed")
}

// On PostgreSQL each run has a recall index of its own on a worker: one
// engine holding a run's index open does not keep another engine of the
// same worker from another run's, and one engine goes from run to run.
func TestPostgresRunsHaveTheirOwnIndex(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	home := t.TempDir()
	cfg := memory.Config{DBPath: url, Budget: 4000, IndexDir: home}
	a, b := mustOpen(t, cfg), mustOpen(t, cfg)
	for i, id := range []string{"run-a", "run-b"} {
		events, err := synth.Events(synth.Config{Seed: uint64(30 + i), Iterations: 40, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.Append(ctx, id, events...); err != nil {
			t.Fatal(err)
		}
	}
	find := func(e *memory.Engine, id string) []memory.Retrieved {
		t.Helper()
		run, err := e.Journal.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := e.Retrieve(ctx, run, recall.Query{Keywords: []string{"tests"}, Limit: 5, DryRun: true})
		if err != nil {
			t.Fatalf("retrieve in %s: %v", id, err)
		}
		return hits
	}
	// a's engine holds run-a's index open (it searched it last); b's
	// opens run-b's beside it. Once b is done, a moves on to run-b's.
	if len(find(a, "run-a")) == 0 || len(find(b, "run-b")) == 0 {
		t.Fatal("a recall found nothing")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if len(find(a, "run-b")) == 0 {
		t.Fatal("a recall of run-b after run-a found nothing")
	}
	dirs, err := filepath.Glob(filepath.Join(home, "*.bleve"))
	if err != nil || len(dirs) != 2 {
		t.Fatalf("index directories %v (%v), want one per run", dirs, err)
	}
}

// A reindex on PostgreSQL makes each run's index again, quietly (it removes
// them on purpose), and every run is found after it.
func TestPostgresReindexMakesEachRunsIndex(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	var warnings []string
	e := mustOpen(t, memory.Config{DBPath: pgtest.URL(t), Budget: 4000, IndexDir: home,
		Warn: func(w string) { warnings = append(warnings, w) }})
	ids := []string{"run-a", "run-b"}
	for i, id := range ids {
		events, err := synth.Events(synth.Config{Seed: uint64(50 + i), Iterations: 30, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.Append(ctx, id, events...); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.Recall.IndexPath(); got != home {
		t.Errorf("IndexPath() = %s, want the directory of the worker's indexes, %s", got, home)
	}
	for _, id := range ids {
		run, err := e.Journal.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := e.Retrieve(ctx, run, recall.Query{Keywords: []string{"tests"}, Limit: 5, DryRun: true})
		if err != nil || len(hits) == 0 {
			t.Fatalf("retrieve in %s after reindex: %d hits, %v", id, len(hits), err)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("a reindex warned: %q", warnings)
	}
}
