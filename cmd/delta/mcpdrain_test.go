package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// readAll reads a until EOF in a goroutine and says when it got there.
func readAll(a *answerFirst) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, a)
		close(done)
	}()
	return done
}

// TestAnswerFirstHoldsTheEndForAnswers checks that the end of input waits
// for the answer to each request read (ids as numbers and as strings, a
// response split over two writes), and not for notifications, a client's
// answers to the server, or a request the client cancelled.
func TestAnswerFirstHoldsTheEndForAnswers(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`not json`,
	}, "\n") + "\n"
	var out bytes.Buffer
	a := newAnswerFirst(strings.NewReader(in), &out)
	done := readAll(a)
	wantOpen := func(what string) {
		t.Helper()
		select {
		case <-done:
			t.Fatalf("input ended %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	wantOpen("before any answer")
	a.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	wantOpen(`with request "b" unanswered`)
	a.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":"b",`))
	wantOpen(`before the end of request "b"'s answer`)
	a.Write([]byte(`"result":{}}` + "\n"))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("input did not end once every request was answered")
	}
	if !strings.Contains(out.String(), `"id":"b","result"`) {
		t.Errorf("the answers were not passed on whole: %q", out.String())
	}
}

// TestAnswerFirstReadsMessagesAsTheServerDoes checks requests the server
// takes that are not one object per line, and ids it writes back in
// another form: each must hold the end of input until answered.
func TestAnswerFirstReadsMessagesAsTheServerDoes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, answer string }{
		{"no final newline", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"over several lines", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/list\"\n}\n", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n", `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}` + "\n", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a float id written back whole", `{"jsonrpc":"2.0","id":2.0,"method":"ping"}` + "\n", `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"an exponent", `{"jsonrpc":"2.0","id":2e0,"method":"ping"}` + "\n", `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"minus zero", `{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n", `{"jsonrpc":"2.0","id":0,"result":{}}`},
		{"an escaped string", `{"jsonrpc":"2.0","id":"\u0041","method":"ping"}` + "\n", `{"jsonrpc":"2.0","id":"A","result":{}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAnswerFirst(strings.NewReader(c.in), io.Discard)
			done := readAll(a)
			select {
			case <-done:
				t.Fatal("input ended before the answer")
			case <-time.After(100 * time.Millisecond):
			}
			a.Write([]byte(c.answer + "\n"))
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("input did not end once the request was answered")
			}
		})
	}
}
