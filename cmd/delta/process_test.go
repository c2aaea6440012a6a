package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
)

// The test binary doubles as the delta binary: with DELTA_TEST_AS_CLI set
// it runs the CLI on its arguments instead of the tests, so tests can start
// real, concurrent delta processes without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("DELTA_TEST_AS_CLI") == "1" {
		os.Exit(run(context.Background(), append([]string{"delta"}, os.Args[1:]...), newEnv()))
	}
	os.Exit(pgtest.Main(m))
}

// deltaProcess returns a command that runs `delta args...` in a new process
// with the given extra environment. A sync does its own work and starts no
// resident server unless env sets DELTA_MEMORY_RESIDENT (see residentEnv).
func deltaProcess(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), "DELTA_TEST_AS_CLI=1", "DELTA_MEMORY_RESIDENT=off"), env...)
	return cmd
}

// residentEnv returns the environment that makes the syncs of a
// workspace (wsEnv) use a resident server, with a socket directory of the
// test's own; the server is stopped when the test ends. mode "cold" gives
// wsEnv as it is: each sync does its own work.
func residentEnv(t *testing.T, mode string, wsEnv []string) []string {
	t.Helper()
	if mode == "cold" {
		return wsEnv
	}
	tmp, err := os.MkdirTemp("", "dmt")
	if err != nil {
		t.Fatal(err)
	}
	env := append(slices.Clip(wsEnv), "DELTA_MEMORY_RESIDENT=on", "DELTA_MEMORY_RESIDENT_IDLE=2m", "TMPDIR="+tmp)
	t.Cleanup(func() {
		if out, err := deltaProcess(t, env, "memory", "resident", "--stop").CombinedOutput(); err != nil {
			t.Errorf("stop the resident server: %v\n%s", err, out)
		}
		os.RemoveAll(tmp)
	})
	return env
}

// residentServed returns how many syncs the workspace's resident server
// served, or -1 when none runs.
func residentServed(t *testing.T, env []string) int {
	t.Helper()
	out, err := deltaProcess(t, env, "memory", "resident", "--status", "--json").Output()
	if err != nil {
		t.Fatalf("resident --status: %v", err)
	}
	var st struct {
		Running bool `json:"running"`
		Status  struct {
			Served int `json:"served"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("resident --status --json: %v\n%s", err, out)
	}
	if !st.Running {
		return -1
	}
	return st.Status.Served
}
