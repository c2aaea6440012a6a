package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// The error-driven recall example: a cache file removed at 271, read at 372.
var (
	plantRemove = testrun.Plant{At: 271, Thought: "The stale cache file is no longer needed; remove it from the repository.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "git rm -q data/cache_3d5a4.json"}, Command: "git rm -q data/cache_3d5a4.json"}}}
	plantReadGone = testrun.Plant{At: 372, Thought: "Load the cached results to compare them.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "cat data/cache_3d5a4.json"}, Command: "cat data/cache_3d5a4.json",
			Status: journal.StatusFailed, Output: "cat: data/cache_3d5a4.json: No such file or directory\n[exit status 1]"}}}
)

// plantedIterations generates a 400-iteration run with the recall example
// planted, as Delta journal lines grouped by iteration.
func plantedIterations(t *testing.T, n int) [][]byte {
	t.Helper()
	evs := testrun.Planted(t, testrun.Options{Seed: 3, Iterations: n, MaxOutputBytes: 3000}, []testrun.Plant{plantRemove, plantReadGone})
	var its [][]byte
	for _, e := range evs {
		if e.Type == journal.TypeThought || len(its) == 0 {
			its = append(its, nil)
		}
		its[len(its)-1] = append(append(its[len(its)-1], journal.MarshalDelta(e)...), '\n')
	}
	return its
}

// TestSyncReplaysARunLineBatchByLineBatch drives sync the way Delta Engine
// does: the journal grows between calls, sometimes by half a line, and sync
// runs before every LLM call. After every call the file must be valid,
// within budget, and at iteration 372 show the removal from iteration 271.
func TestSyncReplaysARunLineBatchByLineBatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ws := filepath.Join(b.dir, "ws")
	b.env["DELTA_CWD"] = ws
	b.env["DELTA_RUN_ID"] = testrun.RunID
	journalPath := filepath.Join(ws, ".delta", testrun.RunID, "journal.jsonl")
	out := filepath.Join(ws, ".delta", "context_artifacts", "memory.md")
	os.MkdirAll(filepath.Dir(journalPath), 0o755)
	f, err := os.Create(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 6000
	ctx := context.Background()
	sawRecall := false
	var carry []byte
	for i, it := range plantedIterations(t, 400) {
		it = append(carry, it...)
		carry = nil
		if i%7 == 3 {
			// Delta is mid-write: the last line has no newline yet.
			cut := len(it) - 40
			it, carry = it[:cut], bytes.Clone(it[cut:])
		}
		if _, err := f.Write(it); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := b.run(t, ctx, "memory", "sync", "--budget", "6000", "--json")
		if code != 0 {
			t.Fatalf("call %d: exit %d: %s", i+1, code, stderr)
		}
		var res syncJSON
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("call %d: %v: %s", i+1, err, stdout)
		}
		md := b.read(t, out)
		if !utf8.ValidString(md) || !strings.HasPrefix(md, "## ") {
			t.Fatalf("call %d: not the Markdown expected: %.200q", i+1, md)
		}
		if n := tok.Count(md); n > budget {
			t.Fatalf("call %d (iteration %d): %d tokens over the budget %d", i+1, res.Iterations, n, budget)
		}
		if res.Iterations == 372 {
			sawRecall = true
			retrieved := md[max(0, strings.Index(md, "## Retrieved")):]
			if !strings.Contains(retrieved, "git rm -q data/cache_3d5a4.json") {
				t.Fatalf("iteration 372: the failed cat should recall iteration 271's git rm; Retrieved:\n%s", retrieved)
			}
		}
	}
	if !sawRecall {
		t.Fatal("no sync call ended at iteration 372")
	}
}

// TestSyncOfAnEmptyJournalNamesTheRun: the line a sync prints for a
// journal with no complete event yet names the run and says so, rather
// than ": 0 iterations (+0), 0 tokens of 0".
func TestSyncOfAnEmptyJournalNamesTheRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ws := filepath.Join(b.dir, "ws")
	b.env["DELTA_CWD"] = ws
	path := filepath.Join(ws, ".delta", "run-7", "journal.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, nil, 0o644)
	for _, args := range [][]string{{"memory", "sync"}, {"memory", "sync", "--run", "run-7"}} {
		stdout, stderr, code := b.run(t, context.Background(), args...)
		if code != 0 || !strings.HasPrefix(stdout, "run-7: nothing to fold yet") || !strings.Contains(stdout, path) {
			t.Errorf("%v: exit %d: %q %s", args, code, stdout, stderr)
		}
	}
}

func TestSyncInputsAndErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ws := filepath.Join(b.dir, "ws")
	b.env["DELTA_CWD"] = ws

	// No run and no journal yet: a usage error saying what to set.
	_, stderr, code := b.run(t, ctx, "memory", "sync")
	if code != exitUsage || !strings.Contains(stderr, "DELTA_RUN_ID") {
		t.Fatalf("no run: exit %d, %s", code, stderr)
	}
	// A run whose journal is not there yet: a short valid file, exit 0.
	b.env["DELTA_RUN_ID"] = "run-1"
	if _, stderr, code = b.run(t, ctx, "memory", "sync"); code != 0 {
		t.Fatalf("missing journal: exit %d, %s", code, stderr)
	}
	out := filepath.Join(ws, ".delta", "context_artifacts", "memory.md")
	if md := b.read(t, out); !strings.Contains(md, "no journal yet") {
		t.Fatalf("missing journal wrote %q", md)
	}
	// The journal appears; flags beat the environment.
	b.write(t, "ws/.delta/run-1/journal.jsonl", journalText)
	other := filepath.Join(b.dir, "other.md")
	if _, stderr, code = b.run(t, ctx, "memory", "sync", "--output", other, "--keep-recent", "0"); code != 0 {
		t.Fatalf("sync: exit %d, %s", code, stderr)
	}
	if md := b.read(t, other); !strings.Contains(md, "src/parser.py") {
		t.Fatalf("--keep-recent 0 should show the only iteration in the file:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(ws, ".delta", "memory.db")); err != nil {
		t.Fatalf("the database belongs in the workspace: %v", err)
	}
	// A bad journal line fails with the place, and the last file stays.
	b.write(t, "ws/.delta/run-1/journal.jsonl", journalText+"{not json\n")
	_, stderr, code = b.run(t, ctx, "memory", "sync", "--output", other)
	if code != exitFailure || !strings.Contains(stderr, "journal.jsonl:6") {
		t.Fatalf("bad line: exit %d, %s", code, stderr)
	}
	if md := b.read(t, other); !strings.Contains(md, "src/parser.py") {
		t.Fatalf("a failed sync must leave the previous file: %q", md)
	}
	if _, stderr, code = b.run(t, ctx, "memory", "sync", "--keep-recent", "-1"); code != exitUsage {
		t.Fatalf("--keep-recent -1: exit %d, %s", code, stderr)
	}
}

// TestSyncFromTwoProcessesAtOnce runs pairs of sync processes on one
// workspace while the journal grows, then checks the database and the
// index: no corruption, no overlapping or duplicate blocks, every event once.
// The postgres modes do the same with the workspace's memory in a
// PostgreSQL database, where the run's advisory lock makes them take turns.
func TestSyncFromTwoProcessesAtOnce(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"cold", "resident", "postgres-cold", "postgres-resident"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			syncFromTwoProcessesAtOnce(t, mode)
		})
	}
}

// syncFromTwoProcessesAtOnce is TestSyncFromTwoProcessesAtOnce with syncs
// that do their own work (mode cold) or hand it to a resident server.
func syncFromTwoProcessesAtOnce(t *testing.T, mode string) {
	b := setup(t)
	ws := filepath.Join(b.dir, "ws")
	journalPath := filepath.Join(ws, ".delta", testrun.RunID, "journal.jsonl")
	os.MkdirAll(filepath.Dir(journalPath), 0o755)
	f, err := os.Create(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	its := plantedIterations(t, 160)
	wsEnv := []string{"DELTA_CWD=" + ws, "DELTA_RUN_ID=" + testrun.RunID, "DELTA_MEMORY_BUDGET=4000"}
	db := filepath.Join(ws, ".delta", "memory.db")
	pg := strings.HasPrefix(mode, "postgres")
	if pg {
		db = pgtest.URL(t)
		wsEnv = append(wsEnv, "DELTA_MEMORY_DB="+db, "DELTA_MEMORY_INDEX_HOME="+filepath.Join(b.dir, "indexes"))
		mode = strings.TrimPrefix(mode, "postgres-")
	}
	env := residentEnv(t, mode, wsEnv)
	for round, next := 0, 0; next < len(its); round++ {
		for end := min(len(its), next+10+round*3); next < end; next++ {
			f.Write(its[next])
		}
		cmds := []*exec.Cmd{deltaProcess(t, env, "memory", "sync"), deltaProcess(t, env, "memory", "sync", "--output", filepath.Join(ws, "second.md"))}
		outs := make([][]byte, len(cmds))
		errs := make(chan error, len(cmds))
		for i, c := range cmds {
			go func() {
				var err error
				outs[i], err = c.CombinedOutput()
				errs <- err
			}()
		}
		for range cmds {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v\n%s\n%s", round, err, outs[0], outs[1])
			}
		}
	}
	if served := residentServed(t, env); mode == "resident" && served < 1 {
		t.Fatalf("the resident server served %d syncs", served)
	}
	if !pg {
		sdb, err := sqldb.Open(context.Background(), db, sqldb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var check string
		if err := sdb.Read.Get(&check, "PRAGMA integrity_check"); err != nil || check != "ok" {
			t.Fatalf("integrity_check: %q, %v", check, err)
		}
		sdb.Close()
	}
	stdout, stderr, code := b.run(t, context.Background(), "memory", "show", "--db", db, "--all", "--json")
	if code != 0 {
		t.Fatalf("show: %s", stderr)
	}
	var shown struct {
		Run struct {
			Iterations int   `json:"iterations"`
			Events     int64 `json:"events"`
			LastSeq    int64 `json:"last_seq"`
		} `json:"run"`
		Blocks []blockJSON `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Run.Iterations != 160 || shown.Run.Events != shown.Run.LastSeq {
		t.Fatalf("run after concurrent syncs: %+v", shown.Run)
	}
	seen := map[[3]int]string{}
	var visible [][2]int
	for _, bl := range shown.Blocks {
		key := [3]int{bl.Level, bl.Iterations[0], bl.Iterations[1]}
		if prev, dup := seen[key]; dup && !bl.Unfolded {
			t.Fatalf("blocks %s and %s fold the same range L%d %d-%d", prev, bl.ID, key[0], key[1], key[2])
		}
		seen[key] = bl.ID
		if bl.Visible {
			visible = append(visible, bl.Iterations)
		}
	}
	for i := range visible {
		for j := i + 1; j < len(visible); j++ {
			if visible[i][0] <= visible[j][1] && visible[j][0] <= visible[i][1] {
				t.Fatalf("visible blocks overlap: %v and %v", visible[i], visible[j])
			}
		}
	}
	if _, stderr, code := b.run(t, context.Background(), "memory", "retrieve", "--db", db, "-k", "cache_3d5a4", "--dry-run"); code != 0 || strings.Contains(stderr, "rebuil") {
		t.Fatalf("retrieve after concurrent syncs: exit %d, %s", code, stderr)
	}
	if out, err := deltaProcess(t, wsEnv[3:], "memory", "context", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("context after concurrent syncs: %v\n%s", err, out)
	}
}

// TestSyncProcessesMatchInProcessSyncs feeds one run to two workspaces:
// one synced by `delta memory sync` processes, which leave the database to
// their exit and the index's fsyncs to the end of the call, the other by
// syncs in this process, which close everything. The files must be the
// same after every call, the processes must leave the WAL in place, and
// the recall at iteration 372 must come back in both.
//
// Mode resident runs the processes with the resident server: the first
// sync does its own work and starts the server, the others hand theirs to
// it, and the files must still be the same.
func TestSyncProcessesMatchInProcessSyncs(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"cold", "resident"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			syncProcessesMatchInProcessSyncs(t, mode)
		})
	}
}

func syncProcessesMatchInProcessSyncs(t *testing.T, mode string) {
	b := setup(t)
	its := plantedIterations(t, 376)
	if len(its) != 377 {
		t.Fatalf("%d groups of lines, want the opening and 376 iterations", len(its))
	}
	type workspace struct {
		dir     string
		journal *os.File
	}
	var wss [2]workspace
	for i := range wss {
		wss[i].dir = filepath.Join(b.dir, fmt.Sprint("ws", i))
		p := filepath.Join(wss[i].dir, ".delta", testrun.RunID, "journal.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		wss[i].journal = f
	}
	b.env["DELTA_CWD"] = wss[1].dir
	b.env["DELTA_RUN_ID"] = testrun.RunID
	env := residentEnv(t, mode, []string{"DELTA_CWD=" + wss[0].dir, "DELTA_RUN_ID=" + testrun.RunID})
	ctx := context.Background()
	memory := func(ws workspace) string {
		return b.read(t, filepath.Join(ws.dir, ".delta", "context_artifacts", "memory.md"))
	}
	for next, call := 0, 0; next < len(its); call++ {
		n := 1
		if call == 0 {
			n = 360
		}
		for _, it := range its[next : next+n] {
			for _, ws := range wss {
				if _, err := ws.journal.Write(it); err != nil {
					t.Fatal(err)
				}
			}
		}
		next += n
		if out, err := deltaProcess(t, env, "memory", "sync", "--budget", "6000").CombinedOutput(); err != nil {
			t.Fatalf("process sync at iteration %d: %v\n%s", next, err, out)
		}
		if _, stderr, code := b.run(t, ctx, "memory", "sync", "--budget", "6000"); code != 0 {
			t.Fatalf("sync at iteration %d: %s", next, stderr)
		}
		if a, c := memory(wss[0]), memory(wss[1]); a != c {
			t.Fatalf("iteration %d: the process wrote\n%s\n\nthe in-process sync wrote\n%s", next, a, c)
		}
		// its[0] is the run's opening, so iteration 372 is its[372].
		if next == 373 && !strings.Contains(memory(wss[0]), "git rm -q data/cache_3d5a4.json") {
			t.Fatalf("iteration 372: no recall of iteration 271:\n%s", memory(wss[0]))
		}
		if _, err := os.Stat(filepath.Join(wss[0].dir, ".delta", "memory.db-wal")); err != nil {
			t.Fatalf("iteration %d: the sync process did not leave the WAL: %v", next, err)
		}
	}
	// 17 calls: the first did its own work and started the server; the
	// second may have come before it listened.
	if served := residentServed(t, env); mode == "resident" && served < 15 {
		t.Fatalf("the resident server served %d of 17 syncs, want at least 15", served)
	} else if mode == "cold" && served != -1 {
		t.Fatalf("with DELTA_MEMORY_RESIDENT=off a sync started a resident server (it served %d)", served)
	}
}
