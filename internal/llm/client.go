package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults of Config.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultRetries          = 3
	DefaultMaxBackoff       = 20 * time.Second
	DefaultMaxResponseBytes = 1 << 20
	// firstBackoff is the wait before the first retry of a 429 or 5xx
	// that says nothing of when to come back; it doubles with each retry.
	firstBackoff = 500 * time.Millisecond
)

// Config says where the endpoint is and how patient to be with it.
type Config struct {
	// BaseURL is the endpoint up to /chat/completions, such as
	// http://localhost:11434/v1; "" means OpenAI's.
	BaseURL string
	APIKey  string
	// Timeout bounds each HTTP request (0: DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times a 429 or 5xx answer is retried (0:
	// DefaultRetries; negative: never).
	Retries int
	// MaxBackoff caps one wait between retries, Retry-After included
	// (0: DefaultMaxBackoff).
	MaxBackoff time.Duration
	// MaxResponseBytes caps an answer's body (0: DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// HTTPClient is the transport (nil: a new http.Client).
	HTTPClient *http.Client
	// Sleep waits between retries; tests inject one that does not. It must
	// return early with ctx's error when ctx ends (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client calls one chat-completions endpoint. It is safe for concurrent use.
type Client struct {
	api     *openai.Client
	cfg     Config
	baseURL string
	// noJSON is set once the endpoint has refused response_format, so that
	// later calls do not ask for it again.
	noJSON atomic.Bool
}

// New returns a Client for cfg, filling in the defaults.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	oc.HTTPClient = cappedDoer{c: cfg.HTTPClient, max: cfg.MaxResponseBytes}
	return &Client{api: openai.NewClientWithConfig(oc), cfg: cfg, baseURL: oc.BaseURL}
}

// BaseURL is the endpoint the client calls.
func (c *Client) BaseURL() string { return c.baseURL }

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Request is one chat completion to make.
type Request struct {
	Model    string
	Messages []Message
	// MaxTokens caps the completion (0: the endpoint's default).
	MaxTokens int
	// JSON asks for a JSON object (response_format json_object), where the
	// endpoint supports it. The caller validates the answer either way.
	JSON bool
}

// Usage is the tokens the endpoint reports for a call.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Reply is a completed call.
type Reply struct {
	Content string
	// FinishReason is "stop", or "length" when MaxTokens cut the answer.
	FinishReason string
	Usage        Usage
	// Attempts counts the HTTP requests made, retries included.
	Attempts int
}

// Complete makes one chat completion. A 429 or 5xx answer is retried up
// to Config.Retries times, after the wait its Retry-After header asks for
// (or an exponential backoff), capped at Config.MaxBackoff, and only when
// the retry can start before ctx's deadline: a wait past it would only end
// in ctx's error. An endpoint that refuses response_format is asked again
// without it. Failures are *Error; when ctx ends, ctx's error is returned
// as it is.
func (c *Client) Complete(ctx context.Context, req Request) (Reply, error) {
	useJSON := req.JSON && !c.noJSON.Load()
	retries := max(c.cfg.Retries, 0)
	for attempt, limited := 1, 0; ; attempt++ {
		resp, err := c.once(ctx, req, useJSON)
		if err == nil {
			return toReply(resp, attempt)
		}
		if ctx.Err() != nil {
			return Reply{Attempts: attempt}, ctx.Err()
		}
		e := classify(err, c.cfg.Timeout)
		e.Attempts = attempt
		switch {
		case e.Kind == KindHTTP && e.Status == http.StatusBadRequest && useJSON && mentionsResponseFormat(e.Message):
			c.noJSON.Store(true)
			useJSON = false
			continue
		case (e.Kind == KindRateLimit || e.Kind == KindHTTP && e.Status >= 500) && limited < retries:
			wait := c.backoff(limited+1, resp.Header().Get("Retry-After"))
			if end, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(end) {
				return Reply{Attempts: attempt}, e
			}
			limited++
			if err := c.cfg.Sleep(ctx, wait); err != nil {
				return Reply{Attempts: attempt}, err
			}
			continue
		}
		return Reply{Attempts: attempt}, e
	}
}

// once makes one HTTP request under the per-call timeout.
func (c *Client) once(ctx context.Context, req Request, useJSON bool) (openai.ChatCompletionResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	r := openai.ChatCompletionRequest{Model: req.Model, Messages: msgs, MaxTokens: req.MaxTokens}
	if useJSON {
		r.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return c.api.CreateChatCompletion(ctx, r)
}

func toReply(resp openai.ChatCompletionResponse, attempts int) (Reply, error) {
	r := Reply{Attempts: attempts, Usage: Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}}
	if len(resp.Choices) == 0 {
		return r, &Error{Kind: KindBadResponse, Message: "the answer has no choices", Attempts: attempts}
	}
	ch := resp.Choices[0]
	r.Content, r.FinishReason = ch.Message.Content, string(ch.FinishReason)
	return r, nil
}

// backoff is the wait before retry n (1-based): what Retry-After asks for
// (seconds or an HTTP date), else 0.5s doubled each time; never more than
// MaxBackoff.
func (c *Client) backoff(n int, retryAfter string) time.Duration {
	d := firstBackoff << (n - 1)
	if secs, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && secs >= 0 {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(retryAfter); err == nil {
		d = max(0, time.Until(t))
	}
	return min(d, c.cfg.MaxBackoff)
}

// classify turns what go-openai returned into an *Error.
func classify(err error, timeout time.Duration) *Error {
	var api *openai.APIError
	var req *openai.RequestError
	switch {
	case errors.Is(err, errTooLarge):
		return &Error{Kind: KindTooLarge, Message: "the answer's body is over the size cap", Err: err}
	case errors.As(err, &api):
		return statusError(api.HTTPStatusCode, api.Message, err)
	case errors.As(err, &req):
		return statusError(req.HTTPStatusCode, clip(string(req.Body), 200), err)
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("no answer within %s", timeout), Err: err}
	}
	var ue interface{ Timeout() bool }
	if errors.As(err, &ue) && ue.Timeout() {
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("no answer within %s", timeout), Err: err}
	}
	if isTransport(err) {
		return &Error{Kind: KindTransport, Message: err.Error(), Err: err}
	}
	return &Error{Kind: KindBadResponse, Message: "not a chat completion: " + clip(err.Error(), 200), Err: err}
}

func statusError(status int, msg string, err error) *Error {
	kind := KindHTTP
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		kind = KindAuth
	case http.StatusTooManyRequests:
		kind = KindRateLimit
	}
	return &Error{Kind: kind, Status: status, Message: clip(strings.TrimSpace(msg), 200), Err: err}
}

func mentionsResponseFormat(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "response_format") || strings.Contains(m, "json mode") || strings.Contains(m, "json_object")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
