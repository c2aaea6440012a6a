package recall

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqlitedb"
	"github.com/delta-memory/delta-memory/journal"
)

// importedRecaller imports the bundled 400-iteration journal into a new
// database and returns a Recaller over it (no folds), and the run.
func importedRecaller(t *testing.T) (*Recaller, journal.Run) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlitedb.Open(ctx, filepath.Join(dir, "memory.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := New(db, journal.NewStore(db), nil, filepath.Join(dir, "memory.bleve"), DefaultConfig())
	t.Cleanup(func() {
		r.Close()
		db.Close()
	})
	res, err := r.journal.ImportFile(ctx, "../testdata/journals/synth-400.jsonl", journal.ImportOptions{RunID: "r", Format: journal.FormatDelta})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.journal.Run(ctx, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	return r, run
}

// mentionTable reads a run's mentions, in the table's order, and the
// run's mention statistics.
func mentionTable(t *testing.T, r *Recaller, run string) ([]string, state) {
	t.Helper()
	ctx := context.Background()
	var rows []string
	if err := sqlx.SelectContext(ctx, r.store.db.Read, &rows, `SELECT entity || ' ' || changed || ' ' || names || ' ' || iteration || ' ' || failed
		FROM mentions WHERE run_id = ? ORDER BY entity, changed, names, iteration DESC`, run); err != nil {
		t.Fatal(err)
	}
	st, err := r.store.state(ctx, r.store.db.Read, run)
	if err != nil {
		t.Fatal(err)
	}
	return rows, st
}

// TestMentionsFromTheCatchUpMatchTheirOwnPass checks that the mentions a
// catch-up saves from the documents it indexes are the ones the mentions'
// own pass reads from the journal: every iteration but the newest, with
// the same lists, lengths and totals.
func TestMentionsFromTheCatchUpMatchTheirOwnPass(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	own, run := importedRecaller(t)
	if err := own.mention(ctx, run, 0); err != nil {
		t.Fatal(err)
	}
	caught, _ := importedRecaller(t)
	if _, err := caught.CatchUp(ctx, run, nil); err != nil {
		t.Fatal(err)
	}
	a, sa := mentionTable(t, own, run.ID)
	b, sb := mentionTable(t, caught, run.ID)
	if sa.MentionedIter != run.Iterations-1 || sb.MentionedIter != run.Iterations-1 {
		t.Fatalf("mentioned up to %d (own pass) and %d (catch-up), want %d: all but the newest", sa.MentionedIter, sb.MentionedIter, run.Iterations-1)
	}
	if len(a) < run.Iterations || sa.ActsNames == 0 || sa.ChangedNames == 0 {
		t.Fatalf("%d mentions (%d names, %d changed) for %d iterations: too few to compare", len(a), sa.ActsNames, sa.ChangedNames, run.Iterations)
	}
	if !slices.Equal(a, b) || sa.ActsNames != sb.ActsNames || sa.ChangedNames != sb.ChangedNames {
		t.Fatalf("the catch-up's mentions differ from the own pass's: %d rows (%d, %d) against %d (%d, %d)",
			len(b), sb.ActsNames, sb.ChangedNames, len(a), sa.ActsNames, sa.ChangedNames)
	}
	// Nothing is written twice: a second pass finds nothing to do.
	if err := own.mention(ctx, run, 0); err != nil {
		t.Fatal(err)
	}
	if again, _ := mentionTable(t, own, run.ID); len(again) != len(a) {
		t.Fatalf("a pass from a stale position wrote %d rows more", len(again)-len(a))
	}
}

// TestMentionLookupsRankAsTheIndexDid checks the claim the triggers rest
// on: for every entity the journal's iterations change or name, the
// mentions table gives the hits bleve's one-term query gives, in the same
// order (fewest names, then newest), before several points of the run.
// The index is asked for every hit and cut after: asked for 8, it kept 24
// and cut those, and where more than 24 hits tied on score (a list of as
// many names), which 24 it kept followed its segments, not recency.
func TestMentionLookupsRankAsTheIndexDid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, run := importedRecaller(t)
	if _, err := r.CatchUp(ctx, run, nil); err != nil {
		t.Fatal(err)
	}
	ix, err := r.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var terms []struct {
		Entity  string `db:"entity"`
		Changed bool   `db:"changed"`
	}
	if err := sqlx.SelectContext(ctx, r.store.db.Read, &terms, `SELECT DISTINCT entity, changed FROM mentions WHERE run_id = ? ORDER BY entity, changed`, run.ID); err != nil {
		t.Fatal(err)
	}
	if len(terms) < 50 {
		t.Fatalf("only %d entities to look up", len(terms))
	}
	compared := 0
	for _, term := range terms {
		for _, before := range []int{run.Iterations / 3, run.Iterations / 2, run.Iterations} {
			got, err := r.store.mentionHits(ctx, run.ID, term.Entity, term.Changed, before, 8)
			if err != nil {
				t.Fatal(err)
			}
			l := lookup{run: run.ID, kind: KindIteration, before: before, upTo: run.Iterations, limit: run.Iterations}
			if term.Changed {
				l.changed = []string{term.Entity}
			} else {
				l.acts = []string{term.Entity}
			}
			want, err := ix.search(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			want = want[:min(len(want), 8)]
			if !slices.Equal(firsts(got), firsts(want)) {
				t.Fatalf("%q (changed %v) before %d: mentions give %v, the index %v", term.Entity, term.Changed, before, firsts(got), firsts(want))
			}
			for i := range got {
				if got[i].Failed != want[i].Failed {
					t.Fatalf("%q before %d: iteration %d failed %v in the mentions, %v in the index", term.Entity, before, got[i].First, got[i].Failed, want[i].Failed)
				}
			}
			compared += len(got)
		}
	}
	if compared < 200 {
		t.Fatalf("only %d hits compared", compared)
	}
}

func firsts(hs []Hit) []int {
	out := make([]int, len(hs))
	for i, h := range hs {
		out[i] = h.First
	}
	return out
}
