package sqldb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/migrations"
)

// TestMigrationsGoDownAndUp: every migration's Down undoes its Up, so that
// the whole schema can be stepped back to nothing and rebuilt.
func TestMigrationsGoDownAndUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	p, err := goose.NewProvider(goose.DialectSQLite3, db.Write.DB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.GetDBVersion(ctx)
	if err != nil || top < 4 {
		t.Fatalf("version %d after open (%v)", top, err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	// The LLM columns and totals are back.
	if _, err := db.Write.ExecContext(ctx, `SELECT llm_calls, llm_prompt_tokens, llm_completion_tokens, self_check FROM blocks LIMIT 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `SELECT calls, prompt_tokens, completion_tokens, failures, amended FROM llm_usage LIMIT 0`); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentFirstOpens opens one new database from several handles at
// once, as two `delta memory sync` processes starting on a fresh workspace
// do: exactly one must migrate it, and every open must succeed.
func TestConcurrentFirstOpens(t *testing.T) {
	t.Parallel()
	for round := 0; round < 5; round++ {
		path := filepath.Join(t.TempDir(), "memory.db")
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				db, err := sqldb.Open(context.Background(), path, sqldb.Options{})
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
