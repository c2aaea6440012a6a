package testrun

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/pgtest"
)

// OnBackend returns eng itself, or with DELTA_TEST_BACKEND=postgres an
// engine on a new PostgreSQL database holding a copy of eng's runs
// (memory.Copy), with the same settings and its recall index caught up,
// so that a benchmark built on a cached SQLite run times PostgreSQL.
func OnBackend(tb testing.TB, eng *memory.Engine, budget int) *memory.Engine {
	tb.Helper()
	if !pgtest.OnPostgres() {
		return eng
	}
	ctx := context.Background()
	pg, err := memory.Open(ctx, memory.Config{DBPath: pgtest.URL(tb), Budget: budget, IndexDir: filepath.Join(tb.TempDir(), "index.bleve")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pg.Close() })
	if _, err := memory.Copy(ctx, eng, pg, memory.CopyOptions{}, nil); err != nil {
		tb.Fatal(err)
	}
	runs, err := pg.Journal.Runs(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, run := range runs {
		if _, err := pg.Recall.CatchUp(ctx, run, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return pg
}
