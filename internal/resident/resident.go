// Package resident keeps a warm process beside a database, so that a short
// command run again and again (`delta memory sync`, before every LLM call)
// hands its work to a process that already has the database open, instead
// of paying a new process's start, SQLite's schema parse and cold caches
// each time.
//
// One server serves one database, on a Unix socket named after the
// database's path, in a directory only its user can enter. A request
// carries the client executable's identity: a server built from another
// executable answers that it does not match and exits, so a rebuilt
// binary never talks to an old server. Requests are served one at a time.
// A server exits after an idle period, when asked to stop, or when its
// context ends.
package resident

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// Protocol is the wire version; a change of the Request or Reply shape
// bumps it, and a server refuses a request of another version as a
// mismatch.
const Protocol = 1

// maxSocketPath is the longest socket path every Unix takes (sun_path is
// 108 bytes on Linux, 104 on the BSDs and macOS, with its terminating NUL).
const maxSocketPath = 103

// socketHash is how many bytes of the database path's SHA-256 name its
// socket; socketName is as long as such a name.
const (
	socketHash = 10
	socketName = "0123456789abcdef0123.sock"
)

// Ops a server answers itself; every other op goes to the Handler.
const (
	OpStatus = "status"
	OpStop   = "stop"
)

// Request is one call: an op and its body, from an executable.
type Request struct {
	Protocol int             `json:"protocol"`
	Identity string          `json:"identity"`
	Op       string          `json:"op"`
	Body     json.RawMessage `json:"body,omitempty"`
}

// Reply answers a Request. Mismatch says the server was built from
// another executable (or speaks another protocol) and is exiting: the
// client must do the work itself. Error is a failure of the server, not
// of the work, whose outcome the handler puts in Body.
type Reply struct {
	Mismatch bool            `json:"mismatch,omitempty"`
	Error    string          `json:"error,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
}

// Status is what a server says of itself (op "status").
type Status struct {
	PID      int    `json:"pid"`
	Database string `json:"database"`
	Socket   string `json:"socket"`
	Identity string `json:"identity"`
	Started  string `json:"started"`
	Served   int    `json:"served"`
	Idle     string `json:"idle_exit"`
}

var identity = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%d|%d|%d", exe, st.Size(), st.ModTime().UnixNano(), Protocol), nil
})

// Identity names this process's executable: its path, size and
// modification time. Two processes of one build have the same identity; a
// rebuild, a reinstall or a `go run` of changed code gives a new one.
func Identity() (string, error) { return identity() }

// SocketPath is where the server of the database at dbPath listens: a
// name hashed from the database's absolute path, in Dir. It creates Dir.
func SocketPath(dbPath string) (string, error) {
	abs, err := Key(dbPath)
	if err != nil {
		return "", err
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	p := filepath.Join(dir, hex.EncodeToString(sum[:socketHash])+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("resident: socket path %s is longer than %d bytes; set TMPDIR to a shorter directory", p, maxSocketPath)
	}
	return p, nil
}

// Key is what names a database to its resident server: a SQLite file's
// absolute path, or a PostgreSQL URL as it is.
func Key(dbPath string) (string, error) {
	if sqldb.IsPostgres(dbPath) {
		return strings.TrimSpace(dbPath), nil
	}
	return filepath.Abs(dbPath)
}

// Dir is the directory of this user's sockets: delta-memory-UID under the
// temporary directory (under /tmp when TMPDIR is too long for a socket
// path), made with mode 0700. It refuses a directory another user owns or
// can enter, since a socket there could be someone else's.
func Dir() (string, error) {
	name := "delta-memory-" + strconv.Itoa(os.Getuid())
	base := os.TempDir()
	if len(filepath.Join(base, name, socketName)) > maxSocketPath && runtime.GOOS != "windows" {
		base = "/tmp"
	}
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("resident: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("resident: %w", err)
	}
	if !st.IsDir() || st.Mode().Perm()&0o077 != 0 || !ownedByMe(st) {
		return "", fmt.Errorf("resident: %s is not a private directory of this user (want mode 0700, owned by uid %d); remove it", dir, os.Getuid())
	}
	return dir, nil
}
