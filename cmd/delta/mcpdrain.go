package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
	Params json.RawMessage `json:"params"`
}

// cancelled is the request a notifications/cancelled names, as an id key.
func (m message) cancelled() string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	return idKey(p.RequestID)
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
	a.inLine = eachMessage(a.inLine, p[:n], err == io.EOF, func(m message) {
		switch {
		case m.Method == "notifications/cancelled":
			delete(a.pending, m.cancelled())
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
	a.outLine = eachMessage(a.outLine, p[:n], false, func(m message) {
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

// eachMessage appends b to the bytes held, calls f with each whole
// JSON-RPC message among them (each of a batch's), and returns what is left
// of the last one. The server reads JSON values, not lines: a message may
// span lines (pretty-printed) or, at the end of input (end), lack its
// newline. Whole values are looked for only once a newline came, or at the
// end. A value that does not parse is skipped up to the next newline.
func eachMessage(held, b []byte, end bool, f func(message)) []byte {
	held = append(held, b...)
	if !end && bytes.IndexByte(b, '\n') < 0 {
		return held
	}
	for {
		rest := bytes.TrimLeft(held, " \t\r\n")
		if len(rest) == 0 {
			return held[:0]
		}
		dec := json.NewDecoder(bytes.NewReader(rest))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			i := bytes.IndexByte(rest, '\n')
			if errors.Is(err, io.ErrUnexpectedEOF) || i < 0 {
				return rest // not whole yet
			}
			held = rest[i+1:]
			continue
		}
		var batch []message
		if raw[0] == '[' {
			_ = json.Unmarshal(raw, &batch)
		} else {
			var m message
			if json.Unmarshal(raw, &m) == nil {
				batch = []message{m}
			}
		}
		for _, m := range batch {
			f(m)
		}
		held = rest[dec.InputOffset():]
	}
}

// idKey is a request id as a map key, "" for none or null. Ids are
// compared as values: the server writes back 2.0 as 2 and "\u0041" as "A".
func idKey(id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) != nil || v == nil {
		return ""
	}
	if f, ok := v.(float64); ok && f == 0 {
		v = 0.0 // -0
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
