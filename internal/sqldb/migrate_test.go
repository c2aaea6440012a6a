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
	db, p := migrated(t)
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

// A run noted before the scheduler recorded its decisions (migration 15)
// was decided as far as it was noted: its next step must not decide again.
func TestRunsNotedBeforeDecidedWasRecordedCountAsDecided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrated(t)
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatalf("down to 14: %v", err)
	}
	if _, err := db.Write.ExecContext(ctx, `INSERT INTO runs (id, iterations) VALUES ('old', 42)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `INSERT INTO fold_state (run_id, noted, noted_seq, tools_ok, last_interval, chapter_start,
		milestone_title, milestone_iter, pending_milestone) VALUES ('old', 42, 130, '[]', 40, 1, '', 0, '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	var decided int
	if err := db.Write.GetContext(ctx, &decided, `SELECT decided FROM fold_state WHERE run_id = 'old'`); err != nil {
		t.Fatal(err)
	}
	if decided != 42 {
		t.Fatalf("decided %d after the migration, want the 42 iterations noted", decided)
	}
}

// migrated opens a new database, migrated to the newest version, and a
// goose provider to step it down and up.
func migrated(t *testing.T) (*sqldb.DB, *goose.Provider) {
	t.Helper()
	db := mustOpen(t)
	p, err := goose.NewProvider(goose.DialectSQLite3, db.Write.DB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}
