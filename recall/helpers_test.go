package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// Plants shared by the tests: a cache file deleted at 271 and read at 372;
// a lease timeout fixed at 100-101 and the file named again at 250; a
// fact about the metrics port at 40.
var (
	plantMetrics = testrun.Plant{At: 40, Thought: "Check which port the metrics server uses.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "grep -n METRICS config/server.env"}, Command: "grep -n METRICS config/server.env",
			Output: "12:METRICS_HOST=0.0.0.0\n13:METRICS_PORT=9464\n"}}}
	plantRemove = testrun.Plant{At: 271, Thought: "The stale cache file is no longer needed; remove it from the repository.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "git rm -q data/cache_3d5a4.json"}, Command: "git rm -q data/cache_3d5a4.json", Output: ""}}}
	plantReadGone = testrun.Plant{At: 372, Thought: "Load the cached results to compare them.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "cat data/cache_3d5a4.json"}, Command: "cat data/cache_3d5a4.json",
			Status: journal.StatusFailed, Output: "cat: data/cache_3d5a4.json: No such file or directory\n[exit status 1]"}}}
	plantTimeout = testrun.Plant{At: 100, Thought: "Run the storage worker tests.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "pytest -q tests/storage/test_worker.py"}, Command: "pytest -q tests/storage/test_worker.py",
			Status: journal.StatusFailed, Output: "F\nE   TimeoutError: lease expired after 30s in src/storage/worker_bfe.py:88\n1 failed in 31.02s"}}}
	plantFix = testrun.Plant{At: 101, Thought: "The lease is too short for large batches; raise LEASE_TTL_S in the worker.",
		Calls: []testrun.PlantCall{{Tool: "edit_file", Args: map[string]any{"path": "src/storage/worker_bfe.py", "old": "LEASE_TTL_S = 30", "new": "LEASE_TTL_S = 63"},
			Output: "Edited src/storage/worker_bfe.py: 1 replacement"}}}
	plantRevisit = testrun.Plant{At: 250, Thought: "Before tuning throughput I will revisit src/storage/worker_bfe.py and its lease settings.",
		Calls: []testrun.PlantCall{{Tool: "run_shell", Args: map[string]any{"command": "git status --short"}, Command: "git status --short", Output: " M README.md\n"}}}
)

// retrievedText returns the Retrieved partition of the run's context.
func retrievedText(t *testing.T, eng *memory.Engine) (string, *window.Context) {
	t.Helper()
	ctx := context.Background()
	run, err := eng.Journal.Run(ctx, testrun.RunID)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range cx.Partitions {
		if p.Name != window.Retrieved {
			continue
		}
		for _, s := range p.Sections {
			b.WriteString(s.Name + "\n" + s.Content + "\n")
		}
	}
	return b.String(), cx
}
