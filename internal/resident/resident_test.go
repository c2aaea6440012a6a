package resident

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSocket gives each test its own socket directory.
func testSocket(t *testing.T) string {
	t.Helper()
	if !supported {
		t.Skip("no resident server on this system")
	}
	shortTMPDIR(t)
	sock, err := SocketPath(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	return sock
}

// shortTMPDIR points TMPDIR at a new directory short enough for socket
// paths (t.TempDir's can be too long), removed after the test.
func shortTMPDIR(t *testing.T) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "dm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// serve runs s in the background and returns a channel of its result.
func serve(t *testing.T, s *Server) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background()) }()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := Call(context.Background(), s.Socket, OpStatus, nil); err == nil {
			return done
		}
	}
	t.Fatal("the server did not listen within 5 s")
	return nil
}

func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit within 10 s")
		return nil
	}
}

func echo(_ context.Context, op string, body json.RawMessage) (json.RawMessage, func(context.Context), error) {
	if op == "fail" {
		return nil, nil, errors.New("cannot serve")
	}
	return body, nil, nil
}

func TestCallWithoutServer(t *testing.T) {
	sock := testSocket(t)
	if _, err := Call(context.Background(), sock, "x", nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Call with no server: %v, want ErrNoServer", err)
	}
	// A socket file nobody listens on (a server that was killed) is no
	// server either.
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(context.Background(), sock, "x", nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Call to a stale socket file: %v, want ErrNoServer", err)
	}
}

func TestServerHangingUpIsNoServer(t *testing.T) {
	sock := testSocket(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // as a server on its way out does
		}
	}()
	if _, err := Call(context.Background(), sock, OpStop, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Call to a server that hangs up: %v, want ErrNoServer", err)
	}
}

func TestServeAnswersInTurnAndStops(t *testing.T) {
	sock := testSocket(t)
	if err := os.WriteFile(sock, nil, 0o600); err != nil { // a dead server's
		t.Fatal(err)
	}
	var mu sync.Mutex
	var afters []string
	handle := func(ctx context.Context, op string, body json.RawMessage) (json.RawMessage, func(context.Context), error) {
		reply, _, err := echo(ctx, op, body)
		return reply, func(context.Context) { mu.Lock(); afters = append(afters, string(body)); mu.Unlock() }, err
	}
	done := serve(t, &Server{Socket: sock, Database: "db", Handle: handle})
	ctx := context.Background()
	for _, body := range []string{`{"n":1}`, `{"n":2}`} {
		r, err := Call(ctx, sock, "echo", json.RawMessage(body))
		if err != nil || r.Mismatch || r.Error != "" || string(r.Body) != body {
			t.Fatalf("echo %s: reply %+v, err %v", body, r, err)
		}
	}
	r, err := Call(ctx, sock, "fail", nil)
	if err != nil || r.Error != "cannot serve" {
		t.Fatalf("a failing op: reply %+v, err %v; want its error in the reply", r, err)
	}
	r, err = Call(ctx, sock, OpStatus, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	if err := json.Unmarshal(r.Body, &st); err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.Served != 3 || st.Database != "db" || st.Socket != sock {
		t.Fatalf("status %+v: want this pid, 3 served, db, %s", st, sock)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(afters) != 3 || afters[0] != `{"n":1}` || afters[1] != `{"n":2}` {
		t.Fatalf("after ran for %q, want once per served request, in order", afters)
	}
	if _, err := Call(ctx, sock, OpStop, nil); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve after stop: %v", err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket outlived its server: %v", err)
	}
}

func TestAnotherBuildMakesTheServerGiveWay(t *testing.T) {
	sock := testSocket(t)
	done := serve(t, &Server{Socket: sock, Handle: echo, Identity: "an older build"})
	r, err := Call(context.Background(), sock, "echo", json.RawMessage(`{}`))
	if err != nil || !r.Mismatch || r.Body != nil {
		t.Fatalf("a request of another build: reply %+v, err %v; want a mismatch and no work done", r, err)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestIdleServerExits(t *testing.T) {
	sock := testSocket(t)
	start := time.Now()
	done := serve(t, &Server{Socket: sock, Handle: echo, Idle: 200 * time.Millisecond})
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Fatal("the server exited before its idle time")
	}
}

func TestOneServerPerSocket(t *testing.T) {
	sock := testSocket(t)
	done := serve(t, &Server{Socket: sock, Handle: echo})
	if err := (&Server{Socket: sock, Handle: echo}).Serve(context.Background()); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second server: %v, want ErrRunning", err)
	}
	// The first one still answers.
	if r, err := Call(context.Background(), sock, "echo", json.RawMessage(`1`)); err != nil || string(r.Body) != "1" {
		t.Fatalf("first server after the second tried: %+v, %v", r, err)
	}
	Call(context.Background(), sock, OpStop, nil)
	wait(t, done)
}

func TestServeEndsWithItsContext(t *testing.T) {
	sock := testSocket(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Socket: sock, Handle: echo}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestDirRefusesADirectoryOthersCanEnter(t *testing.T) {
	if !supported {
		t.Skip("no resident server on this system")
	}
	tmp := shortTMPDIR(t)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("Dir made %s with mode %v, want 0700", dir, st.Mode().Perm())
	}
	if filepath.Dir(dir) != tmp {
		t.Fatalf("Dir %s is not in TMPDIR %s", dir, tmp)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "not a private directory") {
		t.Fatalf("Dir on a 0755 directory: %v, want a refusal", err)
	}
}

func TestSocketPathIsStablePerDatabase(t *testing.T) {
	if !supported {
		t.Skip("no resident server on this system")
	}
	t.Setenv("TMPDIR", t.TempDir())
	a1, _ := SocketPath("/w/a/.delta/memory.db")
	a2, _ := SocketPath("/w/a/.delta/../.delta/memory.db")
	b, _ := SocketPath("/w/b/.delta/memory.db")
	if a1 == "" || a1 != a2 || a1 == b {
		t.Fatalf("socket paths %q %q %q: want one per database, whatever its spelling", a1, a2, b)
	}
	if len(a1) > maxSocketPath {
		t.Fatalf("socket path %q is longer than %d", a1, maxSocketPath)
	}
}

// TestNextRequestCutsAfterShort: the work a request leaves for after
// does not hold the next request: its ctx is cancelled when the next
// request arrives, and the next request is served once it has returned.
func TestNextRequestCutsAfterShort(t *testing.T) {
	sock := testSocket(t)
	cut := make(chan error, 1)
	handle := func(ctx context.Context, op string, body json.RawMessage) (json.RawMessage, func(context.Context), error) {
		return body, func(bg context.Context) {
			<-bg.Done() // work that would go on for ever
			cut <- bg.Err()
		}, nil
	}
	done := serve(t, &Server{Socket: sock, Database: "db", Handle: handle})
	ctx := context.Background()
	if _, err := Call(ctx, sock, "work", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	r, err := Call(ctx, sock, "work", json.RawMessage(`2`))
	if err != nil || string(r.Body) != "2" {
		t.Fatalf("the next request: %+v, %v", r, err)
	}
	if err := <-cut; !errors.Is(err, context.Canceled) {
		t.Fatalf("after ended with %v, want it cancelled", err)
	}
	if _, err := Call(ctx, sock, OpStop, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-cut; !errors.Is(err, context.Canceled) {
		t.Fatalf("the last after ended with %v, want it cancelled when the server stopped", err)
	}
}
