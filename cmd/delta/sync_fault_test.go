package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/llmtest"
)

// syncWorkspace sets Delta's environment for a workspace holding run r,
// and returns where its journal and its memory file go.
func syncWorkspace(b *testBundle, r string) (journal, memory string) {
	ws := filepath.Join(b.dir, "ws")
	b.env["DELTA_CWD"], b.env["DELTA_RUN_ID"], b.env["DELTA_MEMORY_RESIDENT"] = ws, r, "off"
	journal = filepath.Join(ws, ".delta", r, "journal.jsonl")
	os.MkdirAll(filepath.Dir(journal), 0o755)
	return journal, filepath.Join(ws, ".delta", "context_artifacts", "memory.md")
}

// syncedOnce syncs run-1's journal (journalText) once, whole, and returns
// its journal, its memory file and what the sync wrote there.
func syncedOnce(t *testing.T, b *testBundle) (journal, memory, wrote string) {
	t.Helper()
	journal, memory = syncWorkspace(b, "run-1")
	if err := os.WriteFile(journal, []byte(journalText), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := b.run(t, context.Background(), "memory", "sync", "--keep-recent", "0"); code != 0 {
		t.Fatalf("sync: exit %d, %s", code, stderr)
	}
	return journal, memory, b.read(t, memory)
}

// TestSyncWithAHungModel: an endpoint that takes the connection and never
// answers costs the sync its --deadline, not the model's timeout per fold;
// memory.md is written, and one line on stderr says what was not waited
// for. A bad deadline is a usage error naming where it came from.
func TestSyncWithAHungModel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Response { <-release; return llmtest.Error(503, "gone") })
	t.Cleanup(func() { close(release) })
	b := setup(t)
	journal, memory := syncWorkspace(b, "synth")
	data, err := os.ReadFile(b.synthJournal(t, 160))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b.env["OPENAI_BASE_URL"] = srv.BaseURL()
	ctx := context.Background()
	start := time.Now()
	// At 8,000 tokens the run outgrows its window and folds.
	_, stderr, code := b.run(t, ctx, "memory", "--budget", "8000", "sync", "--deadline", "3s", "--llm-timeout", "60s")
	if took := time.Since(start); code != 0 || took > 30*time.Second {
		t.Fatalf("exit %d after %s: %s", code, took, stderr)
	}
	if strings.Count(stderr, "Warning:") != 1 || !strings.Contains(stderr, "extractive summary") || !strings.Contains(stderr, "deadline") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if md := b.read(t, memory); !strings.Contains(md, "## ") || strings.Contains(md, "no journal yet") {
		t.Errorf("memory.md:\n%s", md)
	}
	out, _, _ := b.run(t, ctx, "memory", "show", "--db", filepath.Join(b.dir, "ws", ".delta", "memory.db"))
	if !strings.Contains(out, "llm summaries awaited for") {
		t.Errorf("show does not say which blocks wait:\n%s", out)
	}
	for _, bad := range [][]string{{"--deadline", "soon"}, {"--deadline", "-1s"}} {
		if _, stderr, code := b.run(t, ctx, append([]string{"memory", "sync"}, bad...)...); code != exitUsage || !strings.Contains(stderr, "--deadline") {
			t.Errorf("%v: exit %d, %s", bad, code, stderr)
		}
	}
	b.env["DELTA_MEMORY_DEADLINE"] = "10 seconds"
	if _, stderr, code := b.run(t, ctx, "memory", "sync"); code != exitUsage || !strings.Contains(stderr, "DELTA_MEMORY_DEADLINE") {
		t.Errorf("DELTA_MEMORY_DEADLINE=%q: exit %d, %s", b.env["DELTA_MEMORY_DEADLINE"], code, stderr)
	}
}

// TestSyncWithoutItsJournal: a journal that goes away does not blank the
// memory of a run the database holds: it is written from the database,
// with a warning.
func TestSyncWithoutItsJournal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	journal, memory, before := syncedOnce(t, b)
	ctx := context.Background()
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := b.run(t, ctx, "memory", "sync", "--keep-recent", "0")
	if code != 0 || !strings.Contains(stderr, "is missing; the memory is written from the database") {
		t.Fatalf("missing journal: exit %d, %s", code, stderr)
	}
	if after := b.read(t, memory); after != before || strings.Contains(after, "no journal yet") {
		t.Errorf("memory.md changed without its journal:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestSyncRefusesARotatedJournal: a journal whose seqs restart below what
// the database holds is an error naming the file and the seqs, and the
// memory of the last good sync stays as it was.
func TestSyncRefusesARotatedJournal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	journal, memory, before := syncedOnce(t, b)
	ctx := context.Background()
	lines := strings.SplitAfter(journalText, "\n")
	for name, text := range map[string]string{
		"truncated": lines[0] + lines[1],
		"replaced":  strings.Replace(lines[0], "2025-10-02T10:00:00.000Z", "2026-01-09T08:00:00.000Z", 1),
	} {
		if err := os.WriteFile(journal, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := b.run(t, ctx, "memory", "sync")
		if code == 0 || !strings.Contains(stderr, "does not continue the stored run") || !strings.Contains(stderr, "journal.jsonl") {
			t.Errorf("%s journal: exit %d, %s", name, code, stderr)
		}
		if after := b.read(t, memory); after != before {
			t.Errorf("%s journal: memory.md changed:\n%s", name, after)
		}
	}
}
