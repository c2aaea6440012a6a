package visualize_test

import (
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestPageSizeLongRun checks that a 10,000-iteration run gives a page a
// browser opens at once: the timeline follows the window, not the run.
func TestPageSizeLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-iteration run")
	}
	t.Parallel()
	eng, _ := testrun.Build(t, testrun.Options{Iterations: 10000, MaxOutputBytes: 2000, Budget: 32000, Seed: 3})
	d, html := render(t, eng, testrun.RunID)
	t.Logf("%d iterations: %d segments, %d blocks, %d bytes", d.Run.Iterations, len(d.Timeline), len(d.Blocks), len(html))
	if len(d.Timeline) > 2000 {
		t.Errorf("%d timeline segments for %d iterations", len(d.Timeline), d.Run.Iterations)
	}
	if len(html) > 8<<20 {
		t.Errorf("page of %d bytes", len(html))
	}
}
