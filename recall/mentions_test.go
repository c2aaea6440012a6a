package recall

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// importedRecaller imports the bundled 400-iteration journal into a new
// database and returns a Recaller over it (no folds), and the run.
func importedRecaller(t *testing.T) (*Recaller, journal.Run) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqldb.Open(ctx, pgtest.Target(t, dir), sqldb.Options{})
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
	st, err := r.store.state(ctx, r.store.db.Read, r.workerOf(run), run)
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
	if len(a) < run.Iterations {
		t.Fatalf("%d mentions for %d iterations: too few to compare", len(a), run.Iterations)
	}
	if !slices.Equal(a, b) {
		t.Fatalf("the catch-up's mentions differ from the own pass's: %d rows against %d", len(b), len(a))
	}
	// Nothing is written twice: a second pass finds nothing to do.
	if err := own.mention(ctx, run, 0); err != nil {
		t.Fatal(err)
	}
	if again, _ := mentionTable(t, own, run.ID); len(again) != len(a) {
		t.Fatalf("a pass from a stale position wrote %d rows more", len(again)-len(a))
	}
}

// TestMentionLookupsRank checks the lookups the triggers rest on against
// a reference read straight from the journal: for every entity the bundled
// journal's iterations change or name, before several points of the run,
// the hits are the iterations whose list holds it, fewest names first, then
// newest (the order bleve's BM25 gave the same one-term queries), at most
// eight, each with whether it failed.
func TestMentionLookupsRank(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, run := importedRecaller(t)
	if err := r.mention(ctx, run, 0); err != nil {
		t.Fatal(err)
	}
	its, err := r.journal.Iterations(ctx, run.ID, 1, run.Iterations-1, journal.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type list struct {
		iteration, names int
		failed           bool
	}
	ref := map[string][]list{} // "0 entity" (named), "1 entity" (changed), "2 entity" (shown)
	for _, it := range its {
		var named strings.Builder
		n := readNames(it, nil, &named)
		for _, e := range n.acts {
			ref["0 "+e] = append(ref["0 "+e], list{it.Number, len(n.acts), n.failed})
		}
		for _, e := range n.changed {
			ref["1 "+e] = append(ref["1 "+e], list{it.Number, len(n.changed), n.failed})
		}
		shown := shownOnly(n.acts, entityIDs(named.String()))
		for _, e := range shown {
			ref["2 "+e] = append(ref["2 "+e], list{it.Number, len(shown), n.failed})
		}
	}
	if len(ref) < 50 {
		t.Fatalf("only %d entities to look up", len(ref))
	}
	compared := 0
	for key, lists := range ref {
		changed, term := int(key[0]-'0'), key[2:]
		for _, before := range []int{run.Iterations / 3, run.Iterations / 2, run.Iterations} {
			var want []list
			for _, l := range lists {
				if l.iteration < before {
					want = append(want, l)
				}
			}
			slices.SortFunc(want, func(a, b list) int { return cmp.Or(a.names-b.names, b.iteration-a.iteration) })
			want = want[:min(len(want), 8)]
			got, err := r.store.mentionHits(ctx, run.ID, term, changed, before, 8)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%q (changed %v) before %d: %d hits, want %d", term, changed, before, len(got), len(want))
			}
			for i := range got {
				if got[i].First != want[i].iteration || got[i].Failed != want[i].failed || got[i].names != want[i].names {
					t.Fatalf("%q (changed %v) before %d, hit %d: iteration %d (names %d, failed %v), want %+v",
						term, changed, before, i, got[i].First, got[i].names, got[i].Failed, want[i])
				}
			}
			compared += len(got)
		}
	}
	if compared < 200 {
		t.Fatalf("only %d hits compared", compared)
	}
}
