package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// historyCase is a generated run in which a file is made, changed once
// more hundreds of iterations before a failure on it, and then fails.
type historyCase struct {
	name          string
	seed          uint64
	entity        string
	made, changed testrun.Plant
	failure       testrun.Plant
	// state is what the Dynamic partition says of the entity.
	state string
}

func shellPlant(at int, thought, command, status, output string) testrun.Plant {
	return testrun.Plant{At: at, Thought: thought, Calls: []testrun.PlantCall{{Tool: "run_shell",
		Args: map[string]any{"command": command}, Command: command, Status: status, Output: output}}}
}

func writePlant(at int, thought, path, content string) testrun.Plant {
	return testrun.Plant{At: at, Thought: thought, Calls: []testrun.PlantCall{{Tool: "write_file",
		Args: map[string]any{"path": path, "content": content}, Output: fmt.Sprintf("Wrote %d bytes to %s", len(content), path)}}}
}

var historyCases = []historyCase{
	{
		// The case of issue 17: created at 515, moved away at 545, read at 925.
		name: "move", seed: 5, entity: "data/cache_4cbf5.json",
		made:    writePlant(515, "Cache the parsed results so the next run can skip parsing.", "data/cache_4cbf5.json", `{"rows": 1204, "parsed": true}`),
		changed: shellPlant(545, "Keep the old cache aside before the schema change.", "mv data/cache_4cbf5.json data/cache_4cbf5.json.bak", "", ""),
		failure: shellPlant(925, "Load the cached results to compare them.", "cat data/cache_4cbf5.json", journal.StatusFailed,
			"cat: data/cache_4cbf5.json: No such file or directory\n[exit status 1]"),
		state: "moved to data/cache_4cbf5.json.bak at iteration 545",
	},
	{
		name: "delete", seed: 9, entity: "fixtures/orders_81c2.csv",
		made: writePlant(120, "Write a small orders fixture for the loader tests.", "fixtures/orders_81c2.csv", "id,total\n1,9.50\n2,14.00\n"),
		changed: shellPlant(160, "The loader tests are done with the fixture; clean it up.",
			"rm -f 'fixtures/orders_81c2.csv' && echo removed", "", "removed"),
		failure: shellPlant(620, "Run the loader against the orders fixture again.", "python -m loader fixtures/orders_81c2.csv", journal.StatusFailed,
			"Traceback (most recent call last):\n  File \"loader/__main__.py\", line 9, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: 'fixtures/orders_81c2.csv'\n[exit status 1]"),
		state: "deleted at iteration 160",
	},
	{
		name: "chmod", seed: 13, entity: "scripts/deploy_7f3.sh",
		made: writePlant(90, "Add the deploy script.", "scripts/deploy_7f3.sh", "#!/bin/sh\nrsync -a build/ host:/srv/app\n"),
		changed: shellPlant(130, "Nobody should run the deploy script until the host is ready.",
			"chmod 000 scripts/deploy_7f3.sh; ls -l scripts", "", "---------- 1 dev dev 44 scripts/deploy_7f3.sh"),
		failure: shellPlant(560, "The host is ready: deploy.", "./scripts/deploy_7f3.sh", journal.StatusFailed,
			"sh: 1: ./scripts/deploy_7f3.sh: Permission denied\n[exit status 126]"),
		state: "mode set to 000 at iteration 130",
	},
	{
		name: "overwrite", seed: 17, entity: "config/limits_9a2.yaml",
		made: writePlant(200, "Set the connection limits.", "config/limits_9a2.yaml", "max_conn: 64\n"),
		changed: shellPlant(240, "Try the limits file from the template instead.",
			`echo "max_conn: 0" > config/limits_9a2.yaml`, "", ""),
		failure: shellPlant(700, "Check the configuration before starting the server.", "python -m app.check --config config/limits_9a2.yaml", journal.StatusFailed,
			"ValueError: max_conn must be positive in config/limits_9a2.yaml\n[exit status 1]"),
		state: "modified at iteration 240",
	},
}

// TestErrorRecallBringsBackTheLastChange feeds runs whose failures come
// hundreds of iterations after the file's last change. The failure must
// bring back the last change first, then the creation, and the Dynamic
// partition must say what became of the file.
func TestErrorRecallBringsBackTheLastChange(t *testing.T) {
	t.Parallel()
	for _, c := range historyCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			events := testrun.Planted(t, testrun.Options{Iterations: c.failure.At, Seed: c.seed}, []testrun.Plant{c.made, c.changed, c.failure})
			eng := testrun.Feed(t, events, 8000, 4000)
			ctx := context.Background()
			run, err := eng.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				t.Fatal(err)
			}
			active, err := eng.Recall.Active(ctx, run.ID, run.Iterations)
			if err != nil {
				t.Fatal(err)
			}
			var order []int
			for _, r := range active {
				if r.Reason == recall.ReasonError && r.Since == c.failure.At {
					order = append(order, r.First)
				}
			}
			if len(order) < 2 || order[0] != c.changed.At || order[1] != c.made.At {
				t.Fatalf("the failure at %d recalled %v, want %d (the last change) then %d (the creation); active: %+v",
					c.failure.At, order, c.changed.At, c.made.At, active)
			}
			got, cx := retrievedText(t, eng)
			last := strings.Index(got, fmt.Sprintf("Iteration %d (recalled", c.changed.At))
			made := strings.Index(got, fmt.Sprintf("Iteration %d (recalled", c.made.At))
			if last < 0 || made < 0 || last > made {
				t.Fatalf("Retrieved should show %d, then %d; got:\n%s\nomitted: %v", c.changed.At, c.made.At, got, cx.Omitted)
			}
			if cx.Tokens > cx.Budget {
				t.Fatalf("window %d tokens over the budget %d", cx.Tokens, cx.Budget)
			}
			dyn := partitionText(cx, window.Dynamic)
			if want := c.entity + ": " + c.state; !strings.Contains(dyn, want) {
				t.Fatalf("Dynamic does not say %q:\n%s", want, dyn)
			}
		})
	}
}
