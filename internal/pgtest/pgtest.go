// Package pgtest starts a throwaway PostgreSQL server for tests: initdb in
// a temporary directory, pg_ctl start listening on a Unix socket there
// only, and a fresh database for each test that asks. A test skips with a
// message when PostgreSQL is not installed (Debian: apt-get install
// postgresql), so the SQLite half of a suite runs anywhere.
//
// A package that uses it stops the server at the end through Main:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// With DELTA_TEST_BACKEND=postgres, Target gives the store suites a
// PostgreSQL database where they would open a SQLite file, so that CI runs
// them on both backends. With DELTA_TEST_PG_REQUIRED set, a missing
// PostgreSQL fails the tests instead of skipping them.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// The environment the package reads.
const (
	// EnvBin names a directory holding initdb and pg_ctl, over the search
	// of the usual places.
	EnvBin = "DELTA_TEST_PG_BIN"
	// EnvBackend, set to "postgres", makes Target give PostgreSQL URLs.
	EnvBackend = "DELTA_TEST_BACKEND"
	// EnvRequired, when set, fails a test that cannot start PostgreSQL
	// rather than skipping it: CI sets it where it installed PostgreSQL.
	EnvRequired = "DELTA_TEST_PG_REQUIRED"
)

var (
	once     sync.Once
	srv      *server
	startErr error
	// indexHome is where the tests' PostgreSQL workers keep their recall
	// indexes, made on the first URL and removed by Main.
	indexHome string
)

// server is a running throwaway cluster.
type server struct {
	bin  string
	dir  string
	as   []string // the command prefix that runs a tool as the cluster's owner
	n    atomic.Int64
	stop func()
}

// URL returns the URL of a new empty database on the test server, starting
// the server on first use. It skips tb when PostgreSQL is not installed,
// and fails it when the server does not start.
func URL(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		srv, startErr = start()
		if startErr == nil {
			// A worker's indexes go under $DELTA_MEMORY_INDEX_HOME, else the
			// user's cache: the tests keep theirs to themselves.
			if home, err := os.MkdirTemp("", "delta-pgtest-index-"); err == nil {
				indexHome = home
				os.Setenv("DELTA_MEMORY_INDEX_HOME", home)
			}
		}
	})
	if errors.Is(startErr, errMissing) && os.Getenv(EnvRequired) == "" {
		tb.Skipf("PostgreSQL half skipped: %v", startErr)
	}
	if startErr != nil {
		tb.Fatalf("start a throwaway PostgreSQL server: %v", startErr)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), srv.n.Add(1))
	admin, err := sql.Open("pgx", srv.url("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	return srv.url(name)
}

// OnPostgres reports whether the suites run on PostgreSQL
// (DELTA_TEST_BACKEND=postgres).
func OnPostgres() bool { return os.Getenv(EnvBackend) == "postgres" }

// Target is what a store test opens: a SQLite file named memory.db in dir,
// or with DELTA_TEST_BACKEND=postgres a new PostgreSQL database (the test
// skips when there is no PostgreSQL, see URL).
func Target(tb testing.TB, dir string) string {
	tb.Helper()
	if OnPostgres() {
		return URL(tb)
	}
	return filepath.Join(dir, "memory.db")
}

// SkipOnPostgres skips a test of something only SQLite has (its files, its
// lock file, its WAL) when the suite runs on PostgreSQL.
func SkipOnPostgres(tb testing.TB, what string) {
	tb.Helper()
	if OnPostgres() {
		tb.Skipf("SQLite only: %s", what)
	}
}

// Main runs the package's tests, then stops the server if one started, and
// removes the directory of the recall indexes its tests made.
func Main(m *testing.M) int {
	code := m.Run()
	if srv != nil {
		srv.stop()
	}
	if indexHome != "" {
		os.RemoveAll(indexHome)
	}
	return code
}

func (s *server) url(db string) string {
	return "postgres://postgres@/" + db + "?host=" + s.dir + "&sslmode=disable"
}

var errMissing = errors.New("initdb and pg_ctl not found (apt-get install postgresql, or set " + EnvBin + ")")

// findBin finds the directory of initdb and pg_ctl: $DELTA_TEST_PG_BIN,
// Debian's /usr/lib/postgresql/N/bin (the newest), or $PATH.
func findBin() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBin, d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errMissing
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// start makes and starts a cluster. PostgreSQL refuses to run as root, so
// under root the tools run as the postgres user the package made, which
// then owns the directory.
func start() (*server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "delta-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, and there is no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.as = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	opts := "-k " + dir + " -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
	if out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	s.stop = func() {
		s.run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
		os.RemoveAll(dir)
	}
	if err := s.ready(); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) run(tool string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, s.as...), filepath.Join(s.bin, tool)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// ready waits until the server takes connections.
func (s *server) ready() error {
	db, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		err := db.PingContext(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("server in %s does not answer: %w", s.dir, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
