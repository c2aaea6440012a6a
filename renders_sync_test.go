package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestSyncKeepsRecalledRenderings syncs the first 150 iterations of the
// bundled journal one at a time, as Delta Engine does: the recalled
// iterations' renderings are kept, fitted ones too, the window shows the
// kept ones (a marked copy shows through), and without them it is the
// same.
func TestSyncKeepsRecalledRenderings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 8000, OneConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	data, err := os.ReadFile("testdata/journals/synth-400.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := testrun.SplitIterations(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "journal.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last memory.SyncResult
	for _, c := range chunks[:150] {
		if _, err := f.Write(c); err != nil {
			t.Fatal(err)
		}
		if last, err = e.Sync(ctx, memory.SyncOptions{Journal: path, KeepRecent: memory.DefaultKeepRecent}); err != nil {
			t.Fatal(err)
		}
	}
	// Another connection, as another process would.
	db, err := sqldb.Open(ctx, e.Path(), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var kept int
	if err := db.Read.GetContext(ctx, &kept, `SELECT COUNT(*) FROM recall_renders`); err != nil || kept == 0 {
		t.Fatalf("%d renderings kept after 150 syncs (%v); the test needs recalls shown in full", kept, err)
	}
	// Fitted renderings (recallfit.go) are kept too, under keys of their
	// own.
	var fitted int
	if err := db.Read.GetContext(ctx, &fitted, `SELECT COUNT(*) FROM recall_renders WHERE key LIKE '%/fit%' AND markdown <> ''`); err != nil || fitted == 0 {
		t.Fatalf("%d fitted renderings kept after 150 syncs (%v); a recall whose output is cut should have one", fitted, err)
	}
	run, err := e.Journal.Run(ctx, last.Import.Run)
	if err != nil {
		t.Fatal(err)
	}
	opts := memory.ContextOptions{Native: memory.DefaultKeepRecent}
	if _, err := db.Write.ExecContext(ctx, `UPDATE recall_renders SET markdown = markdown || ' KEPT-MARK'`); err != nil {
		t.Fatal(err)
	}
	marked, err := e.Context(ctx, run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(marked.Markdown(), "KEPT-MARK") {
		t.Fatal("the window did not show the kept renderings")
	}
	if _, err := db.Write.ExecContext(ctx, `DELETE FROM recall_renders`); err != nil {
		t.Fatal(err)
	}
	fresh, err := e.Context(ctx, run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Markdown() != last.Markdown {
		t.Fatal("rendered afresh, the window differs from the one with kept renderings")
	}
}
