package visualize_test

import (
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/internal/visualize"
)

// TestPageSizeLongRun checks that a 10,000-iteration run gives a page a
// browser opens at once: the timeline follows the window, not the run.
func TestPageSizeLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-iteration run")
	}
	t.Parallel()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 10000, MaxOutputBytes: 2000, Budget: 32000, Seed: 3})
	run, err := eng.Journal.Run(t.Context(), testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := visualize.Gather(t.Context(), eng, run)
	if err != nil {
		t.Fatal(err)
	}
	html, err := visualize.HTML(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations: %d segments, %d blocks, %d bytes", run.Iterations, len(d.Timeline), len(d.Blocks), len(html))
	if len(d.Timeline) > 2000 {
		t.Errorf("%d timeline segments for %d iterations", len(d.Timeline), run.Iterations)
	}
	if len(html) > 8<<20 {
		t.Errorf("page of %d bytes", len(html))
	}
}
