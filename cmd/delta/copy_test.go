package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
)

// copy takes a workspace to PostgreSQL and back through the CLI, says what
// it did, and copying again changes nothing.
func TestCopyCommand(t *testing.T) {
	ctx := context.Background()
	b := setup(t)
	b.env["DELTA_MEMORY_INDEX_HOME"] = filepath.Join(b.dir, "indexes")
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	url := pgtest.URL(t)
	out, errOut, code := b.run(t, ctx, "memory", "copy", "--from", b.db, "--to", url)
	if code != 0 || !strings.Contains(out, "copied run-1: 5 events") || !strings.Contains(out, "the same window on both") {
		t.Fatalf("copy: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	out, _, code = b.run(t, ctx, "memory", "copy", "--from", b.db, "--to", url, "--json")
	var res struct {
		Runs []struct {
			Run, Action string
			Rows        map[string]int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Runs) != 1 || res.Runs[0].Action != "unchanged" || res.Runs[0].Rows["events"] != 5 {
		t.Fatalf("copy again: code %d, %v\n%s", code, err, out)
	}
	out, _, code = b.run(t, ctx, "memory", "show", "--db", url, "--iteration", "1")
	if code != 0 || !strings.Contains(out, "Thought: Read it.") {
		t.Fatalf("show on PostgreSQL: code %d\n%s", code, out)
	}
	same := strings.Replace(url, "postgres://", "postgresql://", 1) + "&application_name=other"
	if _, errOut, code = b.run(t, ctx, "memory", "copy", "--from", url, "--to", same); code != exitUsage || !strings.Contains(errOut, "are the same database") {
		t.Fatalf("copy onto the same database spelled otherwise: exit %d\n%s", code, errOut)
	}
	back := filepath.Join(b.dir, "back.db")
	if out, errOut, code = b.run(t, ctx, "memory", "copy", "--from", url, "--to", back); code != 0 || !strings.Contains(out, "copied run-1") {
		t.Fatalf("copy back: code %d\n%s%s", code, out, errOut)
	}
}

func TestCopyCommandErrors(t *testing.T) {
	ctx := context.Background()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--from", b.db, "--to", b.db}, "are the same database", exitUsage},
		{[]string{"--to", b.db}, "needs both --from and --to", exitUsage},
		{[]string{"--from", filepath.Join(b.dir, "none.db"), "--to", filepath.Join(b.dir, "x.db")}, "Try: check --from", exitFailure},
		{[]string{"--from", b.db, "--to", filepath.Join(b.dir, "y.db"), "--run", "nope"}, "delta memory runs --db " + b.db, exitFailure},
		{[]string{"--from", b.db, "--to", "postgres://me:s3cret@/nodb?host=" + filepath.Join(b.dir, "nosocket") + "&connect_timeout=2"}, "is the server up", exitFailure},
	} {
		_, errOut, code := b.run(t, ctx, append([]string{"memory", "copy"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("copy %v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, errOut)
		}
		if strings.Contains(errOut, "s3cret") {
			t.Errorf("copy %v shows the password:\n%s", tc.args, errOut)
		}
	}
}
