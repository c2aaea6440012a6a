package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

func TestDefaultDBPath(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := memory.DefaultDBPath(getenv); got != filepath.Join(".delta", "memory.db") {
		t.Errorf("without DELTA_CWD: %s", got)
	}
	env["DELTA_CWD"] = "/work/agent"
	if got := memory.DefaultDBPath(getenv); got != "/work/agent/.delta/memory.db" {
		t.Errorf("with DELTA_CWD: %s", got)
	}
}

func TestOpenMustExistAndResolveRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	if _, err := memory.Open(ctx, memory.Config{DBPath: path, MustExist: true}); !errors.Is(err, memory.ErrNoDatabase) {
		t.Fatalf("MustExist on a missing file: %v", err)
	}
	eng, err := memory.Open(ctx, memory.Config{DBPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.ResolveRun(ctx, ""); !errors.Is(err, journal.ErrNoRuns) {
		t.Fatalf("latest of none: %v", err)
	}
	ev := []journal.Event{{Seq: 1, Type: journal.TypeRunStart, Payload: []byte(`{"run_id":"r","task":"t"}`)}}
	if _, err := eng.Journal.Append(ctx, "r", journal.FormatDelta, ev); err != nil {
		t.Fatal(err)
	}
	if r, err := eng.ResolveRun(ctx, ""); err != nil || r.ID != "r" || r.Task != "t" {
		t.Fatalf("latest: %+v %v", r, err)
	}
	if _, err := eng.ResolveRun(ctx, "x"); !errors.Is(err, journal.ErrRunNotFound) {
		t.Fatalf("unknown: %v", err)
	}
}
