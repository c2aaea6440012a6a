// Package llm is a thin client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Azure OpenAI, vLLM, llama.cpp server, Ollama), built on
// github.com/sashabaranov/go-openai.
//
// It adds what a background summarizer needs and go-openai leaves to its
// caller: a timeout per call, bounded retries on rate limiting that honour
// Retry-After, a cap on the size of an answer, JSON mode that turns itself
// off for endpoints that reject it, and errors sorted into kinds (timeout,
// rate limit, auth, HTTP, transport, oversized) that read well in a log.
package llm
