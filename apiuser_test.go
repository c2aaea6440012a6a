package memory_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIUser builds and runs testdata/apiuser, a module of its own that
// imports this package through a replace directive, as another project
// would: it proves the API is importable and enough for an agent, from
// outside the module. The module is copied to a temporary directory, its
// replace pointed at this checkout, and given this module's go.sum, so the
// source tree is never written to; -mod=mod lets go add the requirements
// the copy's go.mod leaves out, from the module cache or the proxy.
func TestAPIUser(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not on PATH (%v): cannot build testdata/apiuser", err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join("testdata", "apiuser", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	const local = "=> ../.."
	if !bytes.Contains(mod, []byte(local)) {
		t.Fatalf("testdata/apiuser/go.mod: no replace %q to point at this checkout", local)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), bytes.ReplaceAll(mod, []byte(local), []byte("=> "+root)))
	writeFile(t, filepath.Join(dir, "go.sum"), readFile(t, "go.sum"))
	writeFile(t, filepath.Join(dir, "main.go"), readFile(t, filepath.Join("testdata", "apiuser", "main.go")))

	bin := filepath.Join(dir, "apiuser")
	build := exec.CommandContext(t.Context(), gobin, "build", "-mod=mod", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build testdata/apiuser: %v\n%s", err, out)
	}
	run := exec.CommandContext(t.Context(), bin)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("run testdata/apiuser: %v\n%s%s", err, out, stderr.Bytes())
	}
	want := strings.Join([]string{
		"run run-api: 12 iterations",
		"folded and unfolded L2-1-3",
		"bookmarks: 1",
		"recalled iteration 4: true",
		"within budget: true",
		"messages: true",
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("testdata/apiuser printed\n%s\nwant\n%s", out, want)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
