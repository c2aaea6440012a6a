package llmtest

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/delta-memory/delta-memory/scoring"
)

// Model is a handler that stands in for a model: it answers every summary
// request with a valid summary that depends only on the request, and every
// self-check (a request that asks for "missing" facts) with none missing.
// It reports usage as an endpoint would, counting tokens with tok (4 more
// per message for the chat framing), so that cost figures measured against
// it are the ones a real endpoint would bill for the same prompts.
func Model(tok scoring.Tokenizer) Handler {
	return func(_ int, r Request) Response {
		text := r.Body.Text()
		prompt := 0
		for _, m := range r.Body.Messages {
			prompt += 4 + tok.Count(m.Content)
		}
		var answer string
		if strings.Contains(text, `"missing"`) {
			answer = `{"missing": []}`
		} else {
			h := fnv.New32a()
			h.Write([]byte(text))
			answer = fmt.Sprintf(`{"title": "Model notes %08x", "content": "The agent worked through this part of the task; the model read %d prompt tokens.", `+
				`"outcomes": ["progress recorded"], "keywords": ["model-notes"], "entities": [], "state_changes": []}`, h.Sum32(), prompt)
		}
		return Completion(answer, prompt, tok.Count(answer))
	}
}
