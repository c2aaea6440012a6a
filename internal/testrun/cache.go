package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/engine"
)

// CacheEnv names the environment variable that sets the directory where
// Cached keeps built runs. The default is delta-memory/bench-runs under the
// user's cache directory.
const CacheEnv = "DELTA_BENCH_CACHE"

// Cached returns an engine over a copy of the run Build makes with o, folded
// and with its recall index caught up. A long run takes minutes to build
// (the scheduler notes and folds it one iteration at a time), so the first
// build is kept in a cache directory under a name made of o and a hash of
// the module's sources: later calls on the same code, such as the repeats
// of a benchmark run with -count, copy it instead. The copy lives in
// tb.TempDir, so callers may write to it.
func Cached(tb testing.TB, o Options) *engine.Engine {
	tb.Helper()
	ctx := context.Background()
	src, err := cachedBuild(ctx, o)
	if err != nil {
		tb.Fatalf("build run of %d iterations: %v", o.Iterations, err)
	}
	dir := tb.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		tb.Fatalf("copy built run from %s: %v", src, err)
	}
	eng, err := engine.Open(ctx, engine.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: o.Budget})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// staleAfter is how long a build of other sources is kept unused: other
// worktrees may be benchmarking their own code with the same options.
const staleAfter = 24 * time.Hour

// cachedBuild returns the cache directory holding the run of o, building
// it first if it is not there. A build is made in a directory of its own
// and renamed into place once complete, so a directory under its final
// name is always whole. Builds of the same options from other sources,
// unused for staleAfter, are removed.
func cachedBuild(ctx context.Context, o Options) (string, error) {
	root := os.Getenv(CacheEnv)
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory (set %s): %w", CacheEnv, err)
		}
		root = filepath.Join(base, "delta-memory", "bench-runs")
	}
	version, err := sourceHash()
	if err != nil {
		return "", err
	}
	prefix := fmt.Sprintf("n%d-extra%d-out%d-budget%d-seed%d-", o.Iterations, o.Extra, o.MaxOutputBytes, o.Budget, o.Seed)
	sum := sha256.Sum256([]byte(o.Settings + "\x00" + version))
	dir := filepath.Join(root, prefix+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "memory.db")); err == nil {
		now := time.Now()
		return dir, os.Chtimes(dir, now, now) // marks it used
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(root, "building-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	eng, _, err := build(ctx, stage, o)
	if err != nil {
		return "", err
	}
	run, err := eng.Journal.Run(ctx, RunID)
	if err == nil {
		_, err = eng.Recall.CatchUp(ctx, run, nil)
	}
	if err = errors.Join(err, eng.Close()); err != nil {
		return "", err
	}
	old, _ := filepath.Glob(filepath.Join(root, prefix+"*"))
	if err := os.Rename(stage, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "memory.db")); serr == nil {
			return dir, nil // another process built it first
		}
		return "", err
	}
	for _, d := range old {
		if fi, err := os.Stat(d); err == nil && d != dir && time.Since(fi.ModTime()) > staleAfter {
			os.RemoveAll(d)
		}
	}
	return dir, nil
}

// sourceHash hashes the module's Go sources (tests left out), migrations
// and go.sum: whatever decides what a build holds. It finds the module
// from the working directory, which go test sets to the package's.
func sourceHash() (string, error) {
	root, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", errors.New("no go.mod above the working directory")
		}
		root = parent
	}
	h := sha256.New()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".sql") || name == "go.sum") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash the module's sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
