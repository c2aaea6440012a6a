package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// The test binary doubles as the delta binary: with DELTA_TEST_AS_CLI set
// it runs the CLI on its arguments instead of the tests, so tests can start
// real, concurrent delta processes without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("DELTA_TEST_AS_CLI") == "1" {
		os.Exit(run(context.Background(), append([]string{"delta"}, os.Args[1:]...), newEnv()))
	}
	os.Exit(m.Run())
}

// deltaProcess returns a command that runs `delta args...` in a new process
// with the given extra environment.
func deltaProcess(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), "DELTA_TEST_AS_CLI=1"), env...)
	return cmd
}
