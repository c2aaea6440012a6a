package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestMissingSubcommandIsUsage: a parent command without its subcommand
// prints its help on stderr, nothing on stdout, and exits 2.
func TestMissingSubcommandIsUsage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	for _, args := range [][]string{{}, {"memory"}, {"memory", "eval"}, {"--db", b.db, "memory"}} {
		out, errOut, code := b.run(t, ctx, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "COMMANDS:") || !strings.Contains(errOut, "Error: ") {
			t.Errorf("delta %s: code %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
	}
	// Asking for the help is not a mistake.
	out, errOut, code := b.run(t, ctx, "memory", "--help")
	if code != exitOK || !strings.Contains(out, "COMMANDS:") || errOut != "" {
		t.Errorf("delta memory --help: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestVersion: --version prints the module version and the VCS revision,
// and says so when the build recorded none.
func TestVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	out, errOut, code := b.run(t, context.Background(), "--version")
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, "delta ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("delta --version: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// `go test` stamps no VCS revision: the line says so.
	if !strings.Contains(out, "revision") {
		t.Errorf("delta --version names no revision: %q", out)
	}
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2025-10-02T10:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			"v1.2.3 (revision 0123abcd, 2025-10-02T10:00:00Z)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}},
			"devel (revision 0123abcd, with uncommitted changes)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel (no VCS revision recorded)"},
		{nil, "unknown (built without module information)"},
	} {
		if got := version(tc.info, tc.info != nil); got != tc.want {
			t.Errorf("version(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestFailedCommandsCreateNothing: a command that fails, or only reads,
// creates no directory and no database, and a failed first import or sync
// leaves no empty database behind.
func TestFailedCommandsCreateNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	top := filepath.Join(b.dir, "nonexistent")
	db := filepath.Join(top, "dir", "memory.db")
	bad := b.write(t, "bad.jsonl", journalText+"{not json\n")
	ws := filepath.Join(b.dir, "ws")
	b.write(t, "ws/.delta/run-1/journal.jsonl", "{not json\n")
	b.env["DELTA_CWD"], b.env["DELTA_RUN_ID"] = ws, "run-1"
	for _, args := range [][]string{
		{"memory", "import", filepath.Join(b.dir, "missing.jsonl")},
		{"memory", "import", bad},
		{"memory", "sync", "--output", filepath.Join(b.dir, "memory.md")},
		{"memory", "show"},
		{"memory", "runs"},
		{"memory", "context"},
		{"memory", "retrieve", "--keyword", "parser"},
		{"memory", "bookmark", "--list"},
		{"memory", "milestone", "done"},
		{"memory", "fold", "--iterations", "1-2"},
		{"memory", "unfold", "L2-1-2"},
		{"memory", "reindex"},
		{"memory", "visualize", "--output", filepath.Join(b.dir, "v.html")},
	} {
		_, errOut, code := b.run(t, ctx, append(args, "--db", db)...)
		if code == exitOK {
			t.Errorf("%v: exit 0\n%s", args, errOut)
		}
		if _, err := os.Stat(top); err == nil {
			t.Fatalf("%v (exit %d) created %s\n%s", args, code, top, errOut)
		}
	}
	// In an existing directory, a failed first import leaves it empty.
	db = filepath.Join(b.dir, "memory.db")
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", db, bad); code != exitFailure {
		t.Fatalf("bad import: exit %d\n%s", code, errOut)
	}
	if left, _ := filepath.Glob(db + "*"); len(left) > 0 {
		t.Errorf("a failed first import left %v", left)
	}
	// A failed import into a database that holds a run keeps it.
	good := b.write(t, "good.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", db, good); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	b.run(t, ctx, "memory", "import", "--db", db, "--run", "other", bad)
	if out, _, code := b.run(t, ctx, "memory", "runs", "--db", db); code != exitOK || !strings.Contains(out, "run-1") {
		t.Errorf("the database with run-1 was not kept: exit %d\n%s", code, out)
	}
}

// TestEnvErrorsNameTheVariable: a bad value from an environment variable is
// reported under the variable's name, with a fix for it; the same value
// typed as a flag is reported under the flag's.
func TestEnvErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		env, value string
		args       []string
		flag       string
	}{
		{"DELTA_MEMORY_KEEP_RECENT", "abc", []string{"memory", "sync"}, "--keep-recent"},
		{"DELTA_MEMORY_BUDGET", "lots", []string{"memory", "show"}, "--budget"},
		{"DELTA_MEMORY_LLM_TIMEOUT", "soon", []string{"memory", "show"}, "--llm-timeout"},
		{"DELTA_MEMORY_LLM_CONCURRENCY", "0", []string{"memory", "show"}, "--llm-concurrency"},
		{"DELTA_MEMORY_VERIFY", "maybe", []string{"memory", "show"}, "--verify"},
		{"DELTA_MEMORY_SUMMARIZER", "gpt", []string{"memory", "show"}, "--summarizer"},
		{"DELTA_MEMORY_RESIDENT_IDLE", "forever", []string{"memory", "resident"}, "--idle"},
	} {
		b := setup(t)
		b.env["DELTA_CWD"], b.env["DELTA_RUN_ID"] = b.dir, "run-1"
		b.env[tc.env] = tc.value
		_, errOut, code := b.run(t, ctx, append(tc.args, "--db", b.db)...)
		if code != exitUsage || !strings.Contains(errOut, "Error: "+tc.env+"=") || !strings.Contains(errOut, "Try: set "+tc.env+"=") || strings.Contains(errOut, tc.flag) {
			t.Errorf("%s=%s: code %d\n%s", tc.env, tc.value, code, errOut)
		}
		if tc.env == "DELTA_MEMORY_VERIFY" {
			continue // a boolean flag takes no value
		}
		_, errOut, code = b.run(t, ctx, append(tc.args, "--db", b.db, tc.flag, tc.value)...)
		if code != exitUsage || !strings.Contains(errOut, "Error: "+tc.flag+" ") || strings.Contains(errOut, tc.env) {
			t.Errorf("%s %s: code %d\n%s", tc.flag, tc.value, code, errOut)
		}
	}
}

// TestResumedImportCountsWhatIsStored: an import that resumes from its
// cursor, or finds nothing new, counts the events it seeked past as
// already stored.
func TestResumedImportCountsWhatIsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	lines := strings.SplitAfter(journalText, "\n")
	j := b.write(t, "run-1/journal.jsonl", strings.Join(lines[:3], ""))
	if out, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 || !strings.Contains(out, "3 new events, 0 already stored") {
		t.Fatalf("first import: code %d\n%s%s", code, out, errOut)
	}
	b.write(t, "run-1/journal.jsonl", journalText)
	if out, _, _ := b.run(t, ctx, "memory", "import", "--db", b.db, j); !strings.Contains(out, "2 new events, 3 already stored") {
		t.Errorf("resumed import:\n%s", out)
	}
	if out, _, _ := b.run(t, ctx, "memory", "import", "--db", b.db, j); !strings.Contains(out, "0 new events, 5 already stored") {
		t.Errorf("import with nothing new:\n%s", out)
	}
	out, _, _ := b.run(t, ctx, "memory", "import", "--db", b.db, "--json", j)
	if !strings.Contains(out, `"seeked": 5`) || !strings.Contains(out, `"resumed": true`) {
		t.Errorf("import --json with nothing new:\n%s", out)
	}
}

// cancelOn is a writer that cancels a context once what was written
// contains a marker: an interrupt at a known point of a command.
type cancelOn struct {
	bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.marker) {
		w.cancel()
	}
	return n, err
}

// TestInterruptSaysWhatWasKept: an import interrupted between two files
// says the first was kept and nothing of the second.
func TestInterruptSaysWhatWasKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.write(t, "a.jsonl", journalText)
	second := b.write(t, "b.jsonl", strings.ReplaceAll(journalText, "run-1", "run-2"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{marker: "→ run run-1", cancel: cancel}
	var errb bytes.Buffer
	code := run(ctx, []string{"delta", "memory", "import", "--db", b.db, first, second}, env{stdout: out, stderr: &errb, getenv: func(string) string { return "" }})
	want := "Error: interrupted; nothing of " + second + " was kept; imported before it: " + first + "\n"
	if code != exitInterrupted || errb.String() != want {
		t.Fatalf("code %d\nstderr: %s\nwant:   %s", code, errb.String(), want)
	}
	list, _, _ := b.run(t, context.Background(), "memory", "runs", "--db", b.db)
	if !strings.Contains(list, "run-1") || strings.Contains(list, "run-2") {
		t.Errorf("runs after the interrupt:\n%s", list)
	}
}

// TestCountsHaveThousandsSeparators: counts printed for people carry
// thousands separators; --json keeps plain numbers.
func TestCountsHaveThousandsSeparators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	j := filepath.Join("..", "..", "testdata", "journals", "synth-400.jsonl")
	grouped := regexp.MustCompile(`\b\d{1,3},\d{3}\b`)
	out, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, "--budget", "8000", j)
	if code != 0 || !regexp.MustCompile(`: \d,\d{3} new events`).MatchString(out) {
		t.Fatalf("import: code %d\n%s%s", code, out, errOut)
	}
	out, _, _ = b.run(t, ctx, "memory", "runs", "--db", b.db)
	if !grouped.MatchString(out) {
		t.Errorf("runs lists the events without a separator:\n%s", out)
	}
	out, _, _ = b.run(t, ctx, "memory", "runs", "--db", b.db, "--json")
	if grouped.MatchString(out) {
		t.Errorf("runs --json has a separator in a number:\n%s", out)
	}
}
