package main

import (
	"context"
	"os"
	"path/filepath"
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
