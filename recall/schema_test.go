package recall_test

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestOldSchemaIsRebuilt opens an index written for another index schema
// (here, one that records none, as before schemas): it is rebuilt from the
// database with a warning, and recall still finds what it holds.
func TestOldSchemaIsRebuilt(t *testing.T) {
	t.Parallel()
	eng := testrun.Feed(t, testrun.Planted(t, testrun.Options{Iterations: 300, Seed: 3}, []testrun.Plant{plantMetrics}), 8000, 4000)
	dir := eng.Recall.IndexPath()
	eng.Close()
	bi, err := bleve.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := bi.DeleteInternal([]byte("delta-memory/schema")); err != nil {
		t.Fatal(err)
	}
	if err := bi.Close(); err != nil {
		t.Fatal(err)
	}
	e2, warnings := reopen(t, eng)
	findsMetrics(t, e2)
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "older delta-memory") {
		t.Fatalf("want one warning about the old index, got %q", *warnings)
	}
	_, warnings = reopen(t, e2)
	if len(*warnings) != 0 {
		t.Fatalf("the rebuilt index is rebuilt again: %q", *warnings)
	}
}
