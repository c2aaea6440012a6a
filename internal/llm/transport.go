package llm

import (
	"errors"
	"io"
	"net/http"
	"net/url"
)

// errTooLarge ends the reading of an answer whose body is over the cap, so
// that a runaway endpoint cannot fill memory.
var errTooLarge = errors.New("response body over the size cap")

// cappedDoer is the HTTP client go-openai calls through: it caps the body
// of every answer.
type cappedDoer struct {
	c   *http.Client
	max int64
}

func (d cappedDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: d.max}
	return resp, nil
}

// cappedBody reads at most left bytes, then fails with errTooLarge.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errTooLarge
	}
	// Read one byte past the cap, to tell "exactly the cap" from "over it".
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// isTransport reports whether err happened before any HTTP answer.
func isTransport(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}
