// Package llmtest runs a local HTTP server that speaks the OpenAI
// chat-completions protocol, for tests of the LLM summarizer: no model is
// reachable from a test, and none is needed to check requests, answers,
// failures and accounting.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Request is a chat-completions request as the server received it.
type Request struct {
	Header http.Header
	Path   string
	Body   Body
}

// Body is the JSON of a chat-completions request.
type Body struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens      int `json:"max_tokens"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// Text joins the messages' contents.
func (b Body) Text() string {
	s := ""
	for _, m := range b.Messages {
		s += m.Content + "\n"
	}
	return s
}

// Response is what the server answers to one request.
type Response struct {
	Status int
	Header map[string]string
	Body   string
}

// Handler answers a request; n counts requests from 1.
type Handler func(n int, r Request) Response

// Server is a running chat-completions server. Its methods are safe for
// concurrent use.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
}

// New starts a server that answers with h, closed when the test ends. Its
// URL + "/v1" is the base URL to give a client.
func New(t testing.TB, h Handler) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := Request{Header: r.Header.Clone(), Path: r.URL.Path}
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			http.Error(w, `{"error":{"message":"bad request body","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		n := len(s.requests)
		s.mu.Unlock()
		resp := h(n, req)
		for k, v := range resp.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		if resp.Status == 0 {
			resp.Status = http.StatusOK
		}
		w.WriteHeader(resp.Status)
		io.WriteString(w, resp.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the URL to configure as OPENAI_BASE_URL.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls counts the requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Completion is a 200 answer whose message content is content, reporting
// the given token usage.
func Completion(content string, prompt, completion int) Response {
	return CompletionEnding(content, "stop", prompt, completion)
}

// CompletionEnding is Completion with a finish reason ("length" means the
// answer was cut at max_tokens).
func CompletionEnding(content, finish string, prompt, completion int) Response {
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": "test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
	return Response{Body: string(body)}
}

// JSON is Completion with v marshalled as the content.
func JSON(v any, prompt, completion int) Response {
	b, _ := json.Marshal(v)
	return Completion(string(b), prompt, completion)
}

// Error is an OpenAI-style error answer.
func Error(status int, message string) Response {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "test_error"}})
	return Response{Status: status, Body: string(body)}
}

// Summary is a valid summary answer whose fields name the request number.
func Summary(n int) map[string]any {
	return map[string]any{
		"title":         fmt.Sprintf("Model title %d", n),
		"content":       fmt.Sprintf("The model summarized this range (answer %d). It says what was done and why.", n),
		"outcomes":      []string{"tests pass"},
		"keywords":      []string{"modelword", "retry"},
		"entities":      []string{"model_entity.py"},
		"state_changes": []string{"modified model_entity.py"},
	}
}
