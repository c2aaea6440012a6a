package llm

import (
	"errors"
	"fmt"
)

// Kind sorts a failed call by what went wrong.
type Kind string

// Kinds of Error.
const (
	// KindTimeout: the call took longer than the configured timeout.
	KindTimeout Kind = "timeout"
	// KindRateLimit: the endpoint kept answering 429 after every retry
	// (or until the caller's deadline).
	KindRateLimit Kind = "rate limited"
	// KindAuth: the endpoint refused the API key (401 or 403).
	KindAuth Kind = "auth"
	// KindHTTP: any other 4xx or 5xx answer.
	KindHTTP Kind = "http"
	// KindTransport: no HTTP answer at all (refused connection, DNS, reset).
	KindTransport Kind = "transport"
	// KindTooLarge: the answer's body was over the size cap.
	KindTooLarge Kind = "oversized"
	// KindBadResponse: a 2xx answer that is not a chat completion.
	KindBadResponse Kind = "bad response"
)

// ErrAuth matches (errors.Is) an Error of KindAuth: the key is wrong, and
// every further call would fail the same way.
var ErrAuth = errors.New("the endpoint refused the API key")

// Error is a failed call. Attempts counts the HTTP requests it made,
// retries included, for cost accounting.
type Error struct {
	Kind     Kind
	Status   int    // HTTP status, 0 if none
	Message  string // what the endpoint or the transport said
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	var s string
	switch e.Kind {
	case KindTimeout:
		s = "timeout: " + e.Message
	case KindRateLimit:
		s = fmt.Sprintf("rate limited (HTTP %d) after %d attempts", e.Status, e.Attempts)
	case KindAuth:
		s = fmt.Sprintf("invalid API key (HTTP %d)", e.Status)
	case KindHTTP:
		s = fmt.Sprintf("HTTP %d", e.Status)
	default:
		s = string(e.Kind)
	}
	if e.Message != "" && e.Kind != KindTimeout {
		s += ": " + e.Message
	}
	return s
}

// Transient reports a failure of the endpoint rather than of the request:
// no answer in time, no answer at all, rate limiting or a 5xx. Another
// request would likely fail the same way for a while; a circuit breaker
// counts these.
func (e *Error) Transient() bool {
	switch e.Kind {
	case KindTimeout, KindTransport, KindRateLimit:
		return true
	case KindHTTP:
		return e.Status >= 500
	}
	return false
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrAuth) true for auth failures.
func (e *Error) Is(target error) bool { return target == ErrAuth && e.Kind == KindAuth }
