package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// answerFirst sits between the MCP server and its stdin and stdout, and
// holds back the end of stdin until every request read from it has been
// answered. The SDK cancels the requests in flight when its input ends, so
// a client that writes its requests and then closes stdin (a script, or
// `printf … | delta memory mcp`) would otherwise get no answer at all,
// not even to initialize. A client that keeps stdin open, as MCP clients
// do, sees no difference.
type answerFirst struct {
	in  io.Reader
	out io.Writer

	mu   sync.Mutex
	cond *sync.Cond
	// pending holds the ids of the requests read and not yet answered,
	// as their JSON text.
	pending map[string]bool
	// inLine and outLine hold a message not yet ended by its newline.
	inLine, outLine []byte
	// ended says the client's input has ended; the next Read returns it.
	ended bool
}

// answerWait bounds how long the end of input waits for answers: a call
// that hangs must not keep the server from exiting.
const answerWait = 2 * time.Minute

func newAnswerFirst(in io.Reader, out io.Writer) *answerFirst {
	a := &answerFirst{in: in, out: out, pending: map[string]bool{}}
	a.cond = sync.NewCond(&a.mu)
	return a
}

// message is what answerFirst reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// Read passes the client's bytes on, noting the requests among them. At
// the end of input it returns what it read first, then waits for the
// answers before it returns io.EOF.
func (a *answerFirst) Read(p []byte) (int, error) {
	a.mu.Lock()
	ended := a.ended
	a.mu.Unlock()
	if ended {
		a.waitAnswers()
		return 0, io.EOF
	}
	n, err := a.in.Read(p)
	a.mu.Lock()
	a.inLine = eachLine(a.inLine, p[:n], func(m message) {
		switch {
		case m.Method == "notifications/cancelled":
			delete(a.pending, idKey(m.Params.RequestID))
		case m.Method != "" && idKey(m.ID) != "":
			a.pending[idKey(m.ID)] = true
		}
	})
	if err == io.EOF {
		a.ended = true
	}
	a.mu.Unlock()
	if err == io.EOF {
		if n > 0 {
			return n, nil
		}
		a.waitAnswers()
	}
	return n, err
}

// Write passes the server's bytes on, noting the requests they answer.
func (a *answerFirst) Write(p []byte) (int, error) {
	n, err := a.out.Write(p)
	a.mu.Lock()
	a.outLine = eachLine(a.outLine, p[:n], func(m message) {
		if m.Method == "" && idKey(m.ID) != "" {
			delete(a.pending, idKey(m.ID))
		}
	})
	a.cond.Broadcast()
	a.mu.Unlock()
	return n, err
}

// waitAnswers returns once no request read is left unanswered, or after
// answerWait.
func (a *answerFirst) waitAnswers() {
	timer := time.AfterFunc(answerWait, func() {
		a.mu.Lock()
		a.pending = map[string]bool{}
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer timer.Stop()
	a.mu.Lock()
	for len(a.pending) > 0 {
		a.cond.Wait()
	}
	a.mu.Unlock()
}

// eachLine appends b to the partial line held, calls f with each complete
// line that reads as a JSON-RPC message, and returns what is left of the
// last line.
func eachLine(held, b []byte, f func(message)) []byte {
	held = append(held, b...)
	for {
		i := bytes.IndexByte(held, '\n')
		if i < 0 {
			return held
		}
		var m message
		if json.Unmarshal(held[:i], &m) == nil {
			f(m)
		}
		held = held[i+1:]
	}
}

// idKey is a request id as a map key: its JSON text, "" for none or null.
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || bytes.Equal(id, []byte("null")) {
		return ""
	}
	return string(id)
}
