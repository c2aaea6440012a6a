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
	"sync"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
)

// CacheEnv names the environment variable that sets the directory where
// Cached, SyncedWorkspace and JournalFile keep what they build. The
// default is delta-memory/bench-runs under the user's cache directory.
const CacheEnv = "DELTA_BENCH_CACHE"

// ReuseEnv names the environment variable that, set to 1, lets Cached take
// the database of a build from other sources, indexing it again, when none
// from these sources is there: for profiling changes that do not alter
// what a build holds, without building a long run again. The database may
// then be stale. SyncedWorkspace and JournalFile then take a build from
// other sources as it is.
const ReuseEnv = "DELTA_BENCH_REUSE"

// Cached returns an engine over a copy of the run Build makes with o, folded
// and with its recall index caught up. A long run takes minutes to build
// (the scheduler notes and folds it one iteration at a time), so builds are
// kept in a cache directory, named by o and by hashes of the module's
// sources: later calls on the same code, such as the repeats of a benchmark
// run with -count, copy the build instead. When only the recall package
// changed, the folded database is reused and its index made anew. The copy
// lives in tb.TempDir, so callers may write to it.
func Cached(tb testing.TB, o Options) *memory.Engine {
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
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: o.Budget})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// staleAfter is how long a build of other sources is kept unused: other
// worktrees may be benchmarking their own code with the same options.
const staleAfter = 24 * time.Hour

// recallDir is the package whose sources decide the index but not the
// database: a build that differs only there keeps its database.
const recallDir = "recall"

// cachedBuild returns the cache directory holding the run of o, made first
// if it is not there: from a build of the same database with another
// recall package, by indexing it again, or else from scratch.
func cachedBuild(ctx context.Context, o Options) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	hashes, err := sourceHashes()
	if err != nil {
		return "", err
	}
	dbHash, indexHash := hashes[0], hashes[1]
	prefix := fmt.Sprintf("n%d-extra%d-out%d-budget%d-seed%d-", o.Iterations, o.Extra, o.MaxOutputBytes, o.Budget, o.Seed)
	dbName := prefix + shortHash(o.Settings, dbHash) + "-"
	from := dbName
	if os.Getenv(ReuseEnv) == "1" {
		from = prefix
	}
	return cachedDir(root, prefix, dbName+shortHash(indexHash), func(stage string) error {
		return buildInto(ctx, stage, root, from, o)
	})
}

// cachedFixture returns the cache directory named by prefix and a hash of
// all the module's sources, made by fill first if it is not there. With
// ReuseEnv set to 1, the newest directory of the same prefix made from
// other sources is taken as it is instead.
func cachedFixture(prefix string, fill func(stage string) error) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	hashes, err := sourceHashes()
	if err != nil {
		return "", err
	}
	name := prefix + shortHash(hashes[0], hashes[1])
	if _, err := os.Stat(filepath.Join(root, name)); err != nil && os.Getenv(ReuseEnv) == "1" {
		old, _ := filepath.Glob(filepath.Join(root, prefix+"*"))
		if dir := newest(old); dir != "" {
			return dir, nil
		}
	}
	return cachedDir(root, prefix, name, fill)
}

// cacheRoot is the directory that holds the cached builds.
func cacheRoot() (string, error) {
	if root := os.Getenv(CacheEnv); root != "" {
		return root, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(base, "delta-memory", "bench-runs"), nil
}

// cachedDir returns root/name, made first by fill if it is not there. Fill
// works in a directory of its own under root, renamed into place once
// complete, so a directory under its final name is always whole.
// Directories of the same prefix from other sources, unused for
// staleAfter, are removed.
func cachedDir(root, prefix, name string, fill func(stage string) error) (string, error) {
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err == nil {
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
	if err := fill(stage); err != nil {
		return "", err
	}
	old, _ := filepath.Glob(filepath.Join(root, prefix+"*"))
	if err := os.Rename(stage, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
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

// buildInto makes the run of o in stage, indexed: from the database of a
// cached build whose name starts with from, when there is one, or from
// scratch.
func buildInto(ctx context.Context, stage, root, from string, o Options) error {
	var eng *memory.Engine
	var err error
	same, _ := filepath.Glob(filepath.Join(root, from+"*", "memory.db"))
	for i := range same {
		same[i] = filepath.Dir(same[i])
	}
	if src := newest(same); src != "" {
		for _, name := range []string{"memory.db", "memory.yaml"} {
			if err := copyFile(filepath.Join(stage, name), filepath.Join(src, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		eng, err = memory.Open(ctx, memory.Config{DBPath: filepath.Join(stage, "memory.db"), Budget: o.Budget})
	} else {
		eng, _, err = build(ctx, stage, o)
	}
	if err != nil {
		return err
	}
	// An index of the copied database's generation is not there, so
	// CatchUp indexes the run from the start. The index is then merged as
	// a process that lives on would find it, not as the catch-up left it.
	run, err := eng.Journal.Run(ctx, RunID)
	if err == nil {
		_, err = eng.Recall.CatchUp(ctx, run, nil)
	}
	if err == nil {
		err = eng.Recall.Compact(ctx)
	}
	return errors.Join(err, eng.Close())
}

// newest returns the most recently used of dirs, or "" if there is none.
func newest(dirs []string) string {
	var best string
	var at time.Time
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && (best == "" || fi.ModTime().After(at)) {
			best, at = d, fi.ModTime()
		}
	}
	return best
}

func copyFile(dst, src string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// shortHash names a build by a hash of parts.
func shortHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:6])
}

// sourceHashes hashes the module's Go sources (tests left out), migrations
// and go.sum, which decide what a build holds: the recall package's apart,
// since they decide the index only. It finds the module from the working
// directory, which go test sets to the package's. The sources are read
// once per process, so that every call in one benchmark run names the same
// builds even when the files are edited meanwhile.
var sourceHashes = sync.OnceValues(func() ([2]string, error) {
	db, index, err := hashSources()
	return [2]string{db, index}, err
})

func hashSources() (db, index string, err error) {
	root, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", "", errors.New("no go.mod above the working directory")
		}
		root = parent
	}
	dbh, ixh := sha256.New(), sha256.New()
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
		h := dbh
		if filepath.Dir(rel) == recallDir {
			h = ixh
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", "", fmt.Errorf("hash the module's sources: %w", err)
	}
	return hex.EncodeToString(dbh.Sum(nil)), hex.EncodeToString(ixh.Sum(nil)), nil
}
