package testrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// JournalFile returns the path of a Delta journal holding the run cfg
// generates. It is kept in the cache directory (see Cached), so that a
// long one is written once; callers must not write to it.
func JournalFile(tb testing.TB, cfg synth.Config) string {
	tb.Helper()
	prefix := fmt.Sprintf("journal-n%d-out%d-seed%d-%s-", cfg.Iterations, cfg.MaxOutputBytes, cfg.Seed, shortHash(cfg.RunID, cfg.Start.String()))
	dir, err := cachedFixture(prefix, func(stage string) error {
		f, err := os.Create(filepath.Join(stage, "journal.jsonl"))
		if err != nil {
			return err
		}
		return errors.Join(synth.WriteJSONL(f, cfg), f.Close())
	})
	if err != nil {
		tb.Fatalf("write journal of %d iterations: %v", cfg.Iterations, err)
	}
	return filepath.Join(dir, "journal.jsonl")
}

// The run a Workspace holds: what Delta Engine writes, with tool outputs up
// to 4,000 bytes, synced with a window budget of WorkspaceBudget tokens.
const (
	workspaceSeed = 11
	workspaceOut  = 4000
	// WorkspaceBudget is the window budget in tokens a Workspace is synced
	// with; a process syncing it sets DELTA_MEMORY_BUDGET to it.
	WorkspaceBudget = 8000
	// WorkspaceNext is how many iterations a Workspace holds back.
	WorkspaceNext = 1200
)

// Workspace is a Delta workspace (the directory Delta Engine runs in)
// whose journal holds a generated run's first iterations, all synced, and
// the iterations that follow, held back for a benchmark to append.
type Workspace struct {
	// Dir is the workspace. Its database is DB, and the run is RunID.
	Dir string
	// Journal is the run's journal, memory.JournalPath(Dir, RunID).
	Journal string
	// Next holds the journal lines of the held-back iterations, one
	// iteration each (starting at its THOUGHT), in order.
	Next [][]byte
}

// DB returns the path of the workspace's database.
func (w Workspace) DB() string { return filepath.Join(w.Dir, ".delta", "memory.db") }

// SyncedWorkspace returns a copy, in tb.TempDir, of a workspace whose
// journal holds the first n iterations of a generated run, synced by
// memory.Sync, with the next WorkspaceNext iterations held back. Synced
// workspaces are cached as Cached's builds are. The import cursor names
// the journal by its path, so the copy is synced once more here, which
// reads the journal again: a caller's first sync then resumes from the
// cursor, as it would in the workspace it was made in.
func SyncedWorkspace(tb testing.TB, n int) Workspace {
	tb.Helper()
	ctx := context.Background()
	prefix := fmt.Sprintf("sync-n%d-next%d-out%d-budget%d-seed%d-", n, WorkspaceNext, workspaceOut, WorkspaceBudget, workspaceSeed)
	src, err := cachedFixture(prefix, func(stage string) error { return buildWorkspace(ctx, stage, n) })
	if err != nil {
		tb.Fatalf("build workspace of %d iterations: %v", n, err)
	}
	w := Workspace{Dir: tb.TempDir()}
	w.Journal = memory.JournalPath(w.Dir, RunID)
	if err := os.CopyFS(w.Dir, os.DirFS(filepath.Join(src, "ws"))); err != nil {
		tb.Fatalf("copy workspace from %s: %v", src, err)
	}
	next, err := os.ReadFile(filepath.Join(src, "next.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	if w.Next, err = SplitIterations(next); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := syncWorkspace(ctx, w); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("workspace of %d iterations copied and synced again in %s", n, time.Since(start).Round(time.Millisecond))
	return w
}

// buildWorkspace writes the workspace of n iterations under stage/ws, the
// held-back iterations to stage/next.jsonl, and syncs the workspace.
func buildWorkspace(ctx context.Context, stage string, n int) error {
	w := Workspace{Dir: filepath.Join(stage, "ws")}
	w.Journal = memory.JournalPath(w.Dir, RunID)
	if err := os.MkdirAll(filepath.Dir(w.Journal), 0o755); err != nil {
		return err
	}
	gen, err := synth.New(synth.Config{Seed: workspaceSeed, Iterations: n + WorkspaceNext, RunID: RunID, MaxOutputBytes: workspaceOut})
	if err != nil {
		return err
	}
	if err := writeIterations(w.Journal, gen, n); err != nil {
		return err
	}
	if err := writeIterations(filepath.Join(stage, "next.jsonl"), gen, WorkspaceNext); err != nil {
		return err
	}
	return syncWorkspace(ctx, w)
}

// writeIterations writes gen's next n iterations to a new file at path.
func writeIterations(path string, gen *synth.Generator, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	var line []byte
	for range n {
		evs, _ := gen.Next()
		for _, e := range evs {
			line = append(journal.AppendDelta(line[:0], e), '\n')
			bw.Write(line) // a write error sticks, and Flush returns it
		}
	}
	return errors.Join(bw.Flush(), f.Close())
}

// syncWorkspace opens w's database and syncs its journal once.
func syncWorkspace(ctx context.Context, w Workspace) error {
	eng, err := memory.Open(ctx, memory.Config{DBPath: w.DB(), Budget: WorkspaceBudget})
	if err != nil {
		return err
	}
	_, err = eng.Sync(ctx, memory.SyncOptions{Journal: w.Journal, KeepRecent: memory.DefaultKeepRecent})
	return errors.Join(err, eng.Close())
}

// SplitIterations splits Delta journal lines into iterations, each
// starting at a THOUGHT; lines before the first THOUGHT join it. It fails
// on a line that does not parse or does not end in a newline.
func SplitIterations(data []byte) ([][]byte, error) {
	var chunks [][]byte
	start, thought := 0, false
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			return nil, fmt.Errorf("journal line at byte %d has no newline", off)
		}
		e, err := journal.ParseDeltaLine(data[off : off+end])
		if err != nil {
			return nil, fmt.Errorf("journal line at byte %d: %w", off, err)
		}
		if e.Type == journal.TypeThought {
			if thought {
				chunks = append(chunks, data[start:off])
				start = off
			}
			thought = true
		}
		off += end + 1
	}
	if start < len(data) {
		chunks = append(chunks, data[start:])
	}
	return chunks, nil
}
