package recall

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	bdoc "github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// fieldView is what a field holds, after analysis, in a form to compare.
type fieldView struct {
	Name    string
	At      []uint64
	Options bindex.FieldIndexingOptions
	Value   string
	Length  int
	Freqs   map[string]int
}

func viewFields(doc *bdoc.Document) []fieldView {
	var out []fieldView
	doc.VisitFields(func(f bindex.Field) {
		f.Analyze()
		// No array positions, nil or empty, are the same.
		v := fieldView{Name: f.Name(), At: slices.Clip(append([]uint64(nil), f.ArrayPositions()...)), Options: f.Options(), Value: string(f.Value()),
			Length: f.AnalyzedLength(), Freqs: map[string]int{}}
		for term, tf := range f.AnalyzedTokenFrequencies() {
			v.Freqs[term] = tf.Frequency()
		}
		out = append(out, v)
	})
	slices.SortFunc(out, func(a, b fieldView) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return slices.Compare(a.At, b.At)
	})
	return out
}

// TestDocMakerMatchesMapping checks that documents built by docMaker hold
// the fields bleve's mapper makes of the same documents, analysed alike:
// iterations of a generated run (failures, state changes, long outputs)
// and blocks.
func TestDocMakerMatchesMapping(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqldb.Open(ctx, pgtest.Target(t, dir), sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	js := journal.NewStore(db)
	res, err := js.ImportFile(ctx, "../testdata/journals/synth-400.jsonl", journal.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := createIndex(filepath.Join(dir, "m.bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	maker, err := ix.maker()
	if err != nil {
		t.Fatal(err)
	}
	its, err := js.Iterations(ctx, res.Run, 1, res.Iterations, journal.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []document
	for _, it := range its {
		docs = append(docs, iterationDoc(it))
	}
	docs = append(docs, blockDoc("r", &BlockDoc{ID: "L2-1-10", Level: 2, First: 1, Last: 10, Title: "Fixed the cache",
		Content: "Set LEASE_TTL_S = 63 in src/storage/worker_bfe.py", Keywords: []string{"cache", "lease"},
		Entities: []string{"src/storage/worker_bfe.py", "LEASE_TTL_S"}, StateChanges: []string{"modified src/storage/worker_bfe.py"},
		Errors: []string{"TimeoutError: lease expired"}}))
	failed := 0
	for i := range docs {
		d := &docs[i]
		if d.failed {
			failed++
		}
		want := bdoc.NewDocument(d.id)
		if err := ix.bi.Mapping().MapDocument(want, d.fields()); err != nil {
			t.Fatal(err)
		}
		got, err := maker.make(d)
		if err != nil {
			t.Fatal(err)
		}
		g, w := viewFields(got), viewFields(want)
		if len(g) != len(w) {
			t.Fatalf("%s: docMaker made %d fields, the mapper %d", d.id, len(g), len(w))
		}
		for k := range g {
			if !reflect.DeepEqual(g[k], w[k]) {
				t.Fatalf("%s: docMaker made\n%+v\nthe mapper made\n%+v", d.id, g[k], w[k])
			}
		}
	}
	if failed == 0 {
		t.Fatal("no failed iteration among the documents compared")
	}
}
