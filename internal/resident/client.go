package resident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ErrNoServer says that no server listens for the database: the socket is
// missing or refuses the connection.
var ErrNoServer = errors.New("resident: no server for this database")

// Call sends op with body to the server listening at sock, as this
// executable, and returns the server's reply. It returns ErrNoServer when
// nothing listens there. A reply with Mismatch set means the caller must
// do the work itself. ctx bounds the whole exchange.
func Call(ctx context.Context, sock, op string, body json.RawMessage) (Reply, error) {
	id, err := Identity()
	if err != nil {
		return Reply{}, fmt.Errorf("resident: %w", err)
	}
	return call(ctx, sock, Request{Protocol: Protocol, Identity: id, Op: op, Body: body})
}

func call(ctx context.Context, sock string, req Request) (Reply, error) {
	if !supported {
		return Reply{}, ErrNoServer
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return Reply{}, ErrNoServer
		}
		return Reply{}, fmt.Errorf("resident: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		if hungUp(err) {
			return Reply{}, fmt.Errorf("%w: it hung up: %v", ErrNoServer, err)
		}
		return Reply{}, fmt.Errorf("resident: send: %w", err)
	}
	var r Reply
	if err := json.NewDecoder(conn).Decode(&r); err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		if hungUp(err) {
			return Reply{}, fmt.Errorf("%w: it hung up without a reply: %v", ErrNoServer, err)
		}
		return Reply{}, fmt.Errorf("resident: the server hung up without a reply: %w", err)
	}
	return r, nil
}

// hungUp says that the server dropped the connection: a server on its way
// out (stopped, idle, or giving way to another build) drops those still
// queued, so for the caller there is no server.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// logKeep bounds a server's log: a spawn past it starts the log over.
const logKeep = 1 << 20

// Spawn starts exe with args as a server that outlives the caller: in a
// session of its own, reading nothing, its output appended to logPath,
// with the caller's environment and env's variables over it (a secret
// goes there, not in args, which every user of the host can read). It
// does not wait for the server to listen.
func Spawn(exe string, args, env []string, logPath string) error {
	if !supported {
		return errors.New("resident: not supported on this system")
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if st, err := os.Stat(logPath); err == nil && st.Size() > logKeep {
		flags |= os.O_TRUNC
	}
	log, err := os.OpenFile(logPath, flags, 0o644)
	if err != nil {
		return fmt.Errorf("resident: server log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("resident: start %s: %w", exe, err)
	}
	return cmd.Process.Release()
}
