//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/testrun"
)

// TestResidentGivesWayToANewBuild starts a resident server with one
// executable, then syncs with a copy (another identity, as after a
// rebuild): the old server must exit without doing that sync, the copy
// must do it itself and start its own server, and a status shows it.
func TestResidentGivesWayToANewBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	journal := filepath.Join(ws, ".delta", testrun.RunID, "journal.jsonl")
	os.MkdirAll(filepath.Dir(journal), 0o755)
	f, err := os.Create(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	its := plantedIterations(t, 40)
	env := residentEnv(t, "resident", []string{"DELTA_CWD=" + ws, "DELTA_RUN_ID=" + testrun.RunID, "DELTA_MEMORY_BUDGET=4000"})
	sync := func(cmd *exec.Cmd, n int) string {
		t.Helper()
		for _, it := range its[:n] {
			f.Write(it)
		}
		its = its[n:]
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sync: %v\n%s", err, out)
		}
		return string(out)
	}
	waitServed := func(env []string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); residentServed(t, env) < 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no resident server listened within 10 s of a sync")
			}
		}
	}
	sync(deltaProcess(t, env, "memory", "sync"), 30)
	waitServed(env)
	sync(deltaProcess(t, env, "memory", "sync"), 1)
	if n := residentServed(t, env); n != 1 {
		t.Fatalf("the server served %d syncs, want 1", n)
	}
	old := readPID(t, env)

	// A copy of this executable is another build.
	exe, _ := os.Executable()
	copyPath := filepath.Join(dir, "delta-new")
	copyFile(t, exe, copyPath)
	newBuild := func(args ...string) *exec.Cmd {
		cmd := deltaProcess(t, env, args...)
		cmd.Path, cmd.Args[0] = copyPath, copyPath
		return cmd
	}
	out := sync(newBuild("memory", "sync", "--json"), 1)
	if !strings.Contains(out, `"new_iterations": 1`) {
		t.Fatalf("the new build's sync: %s", out)
	}
	for deadline := time.Now().Add(10 * time.Second); processAlive(old); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the old server (pid %d) still runs after a sync of another build", old)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := newBuild("memory", "resident", "--status").Output()
		if err == nil && strings.HasPrefix(string(st), "resident process") {
			if strings.Contains(string(st), " 0 syncs served") {
				break
			}
			t.Fatalf("the new build's server: %s", st)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new build started no server within 10 s: %s %v", st, err)
		}
	}
	sync(newBuild("memory", "sync"), 1)
	if out, err := newBuild("memory", "resident", "--status").Output(); err != nil || !strings.Contains(string(out), " 1 syncs served") {
		t.Fatalf("the new build's server after a sync: %s %v", out, err)
	}
	if out, err := newBuild("memory", "resident", "--stop").CombinedOutput(); err != nil || !strings.Contains(string(out), "stopped") {
		t.Fatalf("stop: %s %v", out, err)
	}
}

func readPID(t *testing.T, env []string) int {
	t.Helper()
	out, err := deltaProcess(t, env, "memory", "resident", "--status", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	i := strings.Index(string(out), `"pid": `)
	if i < 0 {
		t.Fatalf("no pid in %s", out)
	}
	if _, err := fmt.Sscan(string(out)[i+len(`"pid": `):], &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// processAlive says whether pid runs. A zombie does not: the server's
// parent, a sync, exited long ago, and where PID 1 does not reap (a bare
// container) the dead server would stay one.
func processAlive(pid int) bool {
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// The state follows the command name, which is in parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
	} else if _, serr := os.Stat("/proc/self/stat"); serr == nil {
		return false // /proc works, and pid is not in it
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
