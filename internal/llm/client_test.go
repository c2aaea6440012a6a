package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/llm"
	"github.com/delta-memory/delta-memory/internal/llmtest"
)

// testBundle is a client pointed at a test server, with the waits between
// retries recorded instead of slept.
type testBundle struct {
	srv    *llmtest.Server
	client *llm.Client
	mu     sync.Mutex
	waits  []time.Duration
}

func setup(t *testing.T, cfg llm.Config, h llmtest.Handler) *testBundle {
	t.Helper()
	b := &testBundle{srv: llmtest.New(t, h)}
	cfg.BaseURL = b.srv.BaseURL()
	cfg.Sleep = func(ctx context.Context, d time.Duration) error {
		b.mu.Lock()
		b.waits = append(b.waits, d)
		b.mu.Unlock()
		return ctx.Err()
	}
	b.client = llm.New(cfg)
	return b
}

func ask(t *testing.T, b *testBundle) (llm.Reply, error) {
	t.Helper()
	return b.client.Complete(context.Background(), llm.Request{Model: "small-model", MaxTokens: 99, JSON: true,
		Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "sum up"}}})
}

func TestCompleteRequestShape(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{APIKey: "sk-test-123"}, func(int, llmtest.Request) llmtest.Response {
		return llmtest.Completion(`{"ok":true}`, 120, 30)
	})
	rep, err := ask(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Content != `{"ok":true}` || rep.Usage != (llm.Usage{PromptTokens: 120, CompletionTokens: 30}) || rep.Attempts != 1 || rep.FinishReason != "stop" {
		t.Fatalf("reply: %+v", rep)
	}
	reqs := b.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path %q", r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization %q", got)
	}
	if r.Body.Model != "small-model" || r.Body.MaxTokens != 99 || len(r.Body.Messages) != 2 ||
		r.Body.Messages[0].Role != "system" || r.Body.Messages[1].Content != "sum up" {
		t.Errorf("body: %+v", r.Body)
	}
	if r.Body.ResponseFormat == nil || r.Body.ResponseFormat.Type != "json_object" {
		t.Errorf("response_format: %+v", r.Body.ResponseFormat)
	}
}

func TestCompleteWithoutKeySendsNoAuthHeader(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Completion("{}", 1, 1) })
	if _, err := ask(t, b); err != nil {
		t.Fatal(err)
	}
	if h := b.srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q without a key", h)
	}
}

func TestCompleteDropsJSONModeWhenRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, func(_ int, r llmtest.Request) llmtest.Response {
		if r.Body.ResponseFormat != nil {
			return llmtest.Error(400, "response_format is not supported by this model")
		}
		return llmtest.Completion("{}", 5, 1)
	})
	for range 2 {
		if _, err := ask(t, b); err != nil {
			t.Fatal(err)
		}
	}
	// Refused once, then never asked for again.
	reqs := b.srv.Requests()
	if len(reqs) != 3 || reqs[0].Body.ResponseFormat == nil || reqs[1].Body.ResponseFormat != nil || reqs[2].Body.ResponseFormat != nil {
		t.Fatalf("requests: %d", len(reqs))
	}
}

func TestCompleteRetries429(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{Retries: 3, MaxBackoff: 10 * time.Second}, func(n int, _ llmtest.Request) llmtest.Response {
		switch n {
		case 1:
			r := llmtest.Error(429, "slow down")
			r.Header = map[string]string{"Retry-After": "7"}
			return r
		case 2:
			r := llmtest.Error(429, "slow down")
			r.Header = map[string]string{"Retry-After": "3600"} // capped
			return r
		case 3:
			return llmtest.Error(429, "slow down") // no header: backoff
		}
		return llmtest.Completion("{}", 10, 2)
	})
	rep, err := ask(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Attempts != 4 {
		t.Errorf("attempts %d, want 4", rep.Attempts)
	}
	want := []time.Duration{7 * time.Second, 10 * time.Second, 2 * time.Second}
	if len(b.waits) != len(want) {
		t.Fatalf("waits %v, want %v", b.waits, want)
	}
	for i := range want {
		if b.waits[i] != want[i] {
			t.Errorf("wait %d: %v, want %v", i, b.waits[i], want[i])
		}
	}
}

// TestCompleteRetries5xx: a 5xx is the endpoint's failure, not the
// request's: it is retried as a 429 is, Retry-After honoured.
func TestCompleteRetries5xx(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, func(n int, _ llmtest.Request) llmtest.Response {
		switch n {
		case 1:
			r := llmtest.Error(503, "overloaded")
			r.Header = map[string]string{"Retry-After": "2"}
			return r
		case 2:
			return llmtest.Error(502, "bad gateway")
		}
		return llmtest.Completion("{}", 3, 1)
	})
	rep, err := ask(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Attempts != 3 {
		t.Errorf("attempts %d, want 3", rep.Attempts)
	}
	if want := []time.Duration{2 * time.Second, time.Second}; len(b.waits) != 2 || b.waits[0] != want[0] || b.waits[1] != want[1] {
		t.Errorf("waits %v, want %v", b.waits, want)
	}
}

// TestCompleteRetriesOnlyInsideTheDeadline: a retry that could not start
// before the caller's deadline is not waited for; the failure comes back
// at once, as it is.
func TestCompleteRetriesOnlyInsideTheDeadline(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, func(int, llmtest.Request) llmtest.Response {
		r := llmtest.Error(429, "slow down")
		r.Header = map[string]string{"Retry-After": "15"}
		return r
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rep, err := b.client.Complete(ctx, llm.Request{Model: "m"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindRateLimit || rep.Attempts != 1 {
		t.Fatalf("got %v after %d attempts, want the 429 after 1", err, rep.Attempts)
	}
	if len(b.waits) != 0 {
		t.Errorf("waited %v past the deadline", b.waits)
	}
	if !e.Transient() {
		t.Error("a 429 is not transient")
	}
}

func TestCompleteFailures(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 5000)
	cases := []struct {
		name    string
		cfg     llm.Config
		h       llmtest.Handler
		kind    llm.Kind
		status  int
		say     string
		attempt int
	}{
		{"rate limited past the retries", llm.Config{Retries: 2}, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(429, "quota") },
			llm.KindRateLimit, 429, "rate limited (HTTP 429) after 3 attempts: quota", 3},
		{"server error past the retries", llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(500, "upstream exploded") },
			llm.KindHTTP, 500, "HTTP 500: upstream exploded", 4},
		{"bad request", llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(404, "model not found") },
			llm.KindHTTP, 404, "HTTP 404: model not found", 1},
		{"non-JSON error page", llm.Config{}, func(int, llmtest.Request) llmtest.Response {
			return llmtest.Response{Status: 502, Body: "<html>bad gateway</html>"}
		}, llm.KindHTTP, 502, "HTTP 502: <html>bad gateway</html>", 4},
		{"bad key", llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(401, "Incorrect API key provided") },
			llm.KindAuth, 401, "invalid API key (HTTP 401): Incorrect API key provided", 1},
		{"oversized body", llm.Config{MaxResponseBytes: 1000}, func(int, llmtest.Request) llmtest.Response { return llmtest.Completion(huge, 1, 1) },
			llm.KindTooLarge, 0, "oversized", 1},
		{"not a completion", llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Response{Body: "hello"} },
			llm.KindBadResponse, 0, "not a chat completion", 1},
		{"no choices", llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Response{Body: `{"choices":[]}`} },
			llm.KindBadResponse, 0, "no choices", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tc.cfg, tc.h)
			rep, err := ask(t, b)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tc.kind || e.Status != tc.status || !strings.Contains(e.Error(), tc.say) || e.Attempts != tc.attempt || rep.Attempts != tc.attempt {
				t.Errorf("got kind %q status %d attempts %d/%d %q; want %q %d %d %q", e.Kind, e.Status, e.Attempts, rep.Attempts, e.Error(), tc.kind, tc.status, tc.attempt, tc.say)
			}
			if errors.Is(err, llm.ErrAuth) != (tc.kind == llm.KindAuth) {
				t.Errorf("errors.Is(ErrAuth) wrong for %s", tc.kind)
			}
		})
	}
}

func TestCompleteTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	b := setup(t, llm.Config{Timeout: 50 * time.Millisecond}, func(int, llmtest.Request) llmtest.Response {
		<-release
		return llmtest.Completion("{}", 1, 1)
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	_, err := ask(t, b)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindTimeout || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Fatalf("error %v, want a timeout", err)
	}
}

func TestCompleteTransportAndCancel(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, func(int, llmtest.Request) llmtest.Response { return llmtest.Completion("{}", 1, 1) })
	b.srv.Close()
	_, err := ask(t, b)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindTransport {
		t.Fatalf("closed server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.client.Complete(ctx, llm.Request{Model: "m"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}
