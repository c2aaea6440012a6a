package resident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/delta-memory/delta-memory/internal/lockfile"
)

// ErrRunning is returned by Serve when another server holds the database's
// socket.
var ErrRunning = errors.New("resident: a server already runs for this database")

// DefaultIdle is how long a server waits for its next request before it
// exits.
const DefaultIdle = 10 * time.Minute

// ioWait bounds reading a request and writing a reply; the work between
// is not bounded here.
const ioWait = 10 * time.Second

// Handler does the work of one op and returns the reply's body. An error
// is a failure to serve (the client then does the work itself); the
// outcome of the work, failed or not, belongs in the body. after, if not
// nil, runs once the reply is sent and the client gone: work the reply
// does not wait for. The next request does not wait for it either: its
// ctx is cancelled when a request arrives (or the server stops), and the
// request is read once after has returned, so after must stop soon when
// told to, leaving nothing half done.
type Handler func(ctx context.Context, op string, body json.RawMessage) (reply json.RawMessage, after func(ctx context.Context), err error)

// Server serves the requests for one database, one at a time.
type Server struct {
	// Socket is where to listen, from SocketPath.
	Socket string
	// Database names the database served, for status.
	Database string
	// Idle is how long to wait for a request before exiting; 0 means
	// DefaultIdle.
	Idle time.Duration
	// Handle does the work of every op but status and stop.
	Handle Handler
	// Log, if set, receives a line for each failure to serve.
	Log io.Writer
	// Wait is how long to wait for another server of the database to
	// exit and let go of the socket; 0 means not at all. A server a sync
	// starts does not wait: when several syncs start one at once, the
	// first serves and the others exit.
	Wait time.Duration
	// Identity is the executable's identity; empty means Identity().
	// Requests from another identity are answered with a mismatch.
	Identity string

	started time.Time
	served  int
}

// Serve listens until the server has been idle for s.Idle, is asked to
// stop, meets a client of another build, or ctx ends; then it removes
// the socket and returns nil. It returns ErrRunning when another server
// listens for the same database.
func (s *Server) Serve(ctx context.Context) error {
	if !supported {
		return errors.New("resident: not supported on this system")
	}
	if s.Identity == "" {
		id, err := Identity()
		if err != nil {
			return fmt.Errorf("resident: %w", err)
		}
		s.Identity = id
	}
	if s.Idle <= 0 {
		s.Idle = DefaultIdle
	}
	lock, err := lockfile.Acquire(ctx, s.Socket+".lock", s.Wait)
	if errors.Is(err, lockfile.ErrTimeout) {
		return ErrRunning
	}
	if err != nil {
		return fmt.Errorf("resident: %w", err)
	}
	defer lock.Release()
	// Holding the lock, a socket file left here is a dead server's.
	if err := os.Remove(s.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("resident: remove stale socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.Socket, Net: "unix"})
	if err != nil {
		return fmt.Errorf("resident: listen: %w", err)
	}
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	s.started = time.Now()
	var bg background
	defer bg.stop()
	for {
		ln.SetDeadline(time.Now().Add(s.Idle))
		conn, err := ln.Accept()
		bg.stop() // a request, or the end: what the last one left is cut short
		if err != nil {
			var ne net.Error
			if ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
				return nil
			}
			return fmt.Errorf("resident: accept: %w", err)
		}
		after, done := s.serveConn(ctx, conn)
		if after != nil {
			bg.start(ctx, after)
		}
		if done {
			return nil
		}
	}
}

// background is the after work of the last request, running until the
// next request.
type background struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (b *background) start(ctx context.Context, after func(context.Context)) {
	ctx, b.cancel = context.WithCancel(ctx)
	b.done = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		after(ctx)
	}(b.done)
}

// stop cancels the after work and waits for it to return.
func (b *background) stop() {
	if b.cancel != nil {
		b.cancel()
		<-b.done
		b.cancel, b.done = nil, nil
	}
}

// serveConn answers one connection, and returns the after work of its
// request; exit true means the server must exit.
func (s *Server) serveConn(ctx context.Context, conn net.Conn) (after func(context.Context), exit bool) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(ioWait))
	var req Request
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		s.logf("read request: %v", err)
		return nil, false
	}
	var r Reply
	switch {
	case req.Op == OpStatus:
		r.Body, _ = json.Marshal(s.status())
	case req.Op == OpStop:
		exit = true
	case req.Protocol != Protocol || req.Identity != s.Identity:
		// A client of another build: it does its work itself, and this
		// server gives way to one of the new build.
		r.Mismatch, exit = true, true
	default:
		conn.SetDeadline(time.Time{})
		var body json.RawMessage
		var err error
		body, after, err = s.Handle(ctx, req.Op, req.Body)
		if err != nil {
			s.logf("%s: %v", req.Op, err)
			r.Error = err.Error()
		}
		r.Body = body
		s.served++
		conn.SetDeadline(time.Now().Add(ioWait))
	}
	if err := json.NewEncoder(conn).Encode(r); err != nil {
		s.logf("write reply: %v", err)
	}
	conn.Close() // the client goes on while after runs
	return after, exit
}

func (s *Server) status() Status {
	return Status{
		PID: os.Getpid(), Database: s.Database, Socket: s.Socket, Identity: s.Identity,
		Started: s.started.UTC().Format(time.RFC3339), Served: s.served, Idle: s.Idle.String(),
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "%s delta-memory resident: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
}
