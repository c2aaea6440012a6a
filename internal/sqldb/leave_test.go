package sqldb_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// leaveEnv makes the test binary a helper process that opens the database
// it names, adds a run, and leaves the database (see TestLeaveHelper).
const leaveEnv = "SQLITEDB_TEST_LEAVE"

// TestLeaveHelper is not a test: it is the helper process of
// TestLeaveKeepsTheWALForTheNextProcess, run only with leaveEnv set.
func TestLeaveHelper(t *testing.T) {
	arg := os.Getenv(leaveEnv)
	if arg == "" {
		t.Skip("helper process")
	}
	path, run, _ := strings.Cut(arg, "|")
	ctx := context.Background()
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if _, err := db.Write.ExecContext(ctx, `INSERT INTO runs (id) VALUES (?)`, run); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if err := db.Leave(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// TestLeaveKeepsTheWALForTheNextProcess runs processes that each commit a
// run and exit through Leave: each leaves the WAL in place, not
// checkpointed, and the next process, then this one, see every commit.
func TestLeaveKeepsTheWALForTheNextProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := []string{"a", "b", "c"}
	for _, run := range runs {
		cmd := exec.Command(exe, "-test.run", "^TestLeaveHelper$")
		cmd.Env = append(os.Environ(), leaveEnv+"="+path+"|"+run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helper for run %s: %v\n%s", run, err, out)
		}
		st, err := os.Stat(path + "-wal")
		if err != nil || st.Size() == 0 {
			t.Fatalf("after run %s the WAL was not left: %v", run, err)
		}
	}
	ctx := context.Background()
	db, err := sqldb.Open(ctx, path, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := db.Read.SelectContext(ctx, &got, `SELECT id FROM runs ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(runs, ",") {
		t.Fatalf("runs after the left WALs: %q, want %q", got, runs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Close left the WAL: %v", err)
	}
}

// TestLeaveClosesALargeWAL checks that a WAL past what Leave keeps (after
// a long import) is checkpointed by a normal close, so that the next
// process need not read it all.
func TestLeaveClosesALargeWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	if _, err := db.Write.ExecContext(ctx, `CREATE TABLE big (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
		INSERT INTO big SELECT randomblob(4096) FROM n`); err != nil {
		t.Fatal(err)
	}
	if err := db.Leave(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db.Path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a 12 MB WAL was left: %v", err)
	}
}
