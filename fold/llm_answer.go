package fold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/scoring"
)

// Limits of a model's answer. Past them the answer is oversized: a block
// that large would crowd out the window it is meant to save room in.
const (
	// llmAnswerTokens is the max_tokens of every request.
	llmAnswerTokens = 700
	// llmAnswerBytes caps the answer's text.
	llmAnswerBytes = 16 << 10
	llmTitleRunes  = 160
	// llmListItems and llmItemRunes bound each list the model gives.
	llmListItems = 16
	llmItemRunes = 200
)

// llmContentTokens caps an answer's content, by level.
var llmContentTokens = map[int]int{L2: 300, L3: 250, L4: 100}

// llmAnswer is the JSON a model answers with.
type llmAnswer struct {
	Title        string   `json:"title"`
	Content      string   `json:"content"`
	Outcomes     []string `json:"outcomes"`
	Keywords     []string `json:"keywords"`
	Entities     []string `json:"entities"`
	StateChanges []string `json:"state_changes"`
}

// errInvalidJSON prefixes answers that are not a JSON object.
var errInvalidJSON = errors.New("invalid JSON")

// answerFields are the fields every answer must have.
var answerFields = []string{"title", "content", "outcomes", "keywords", "entities", "state_changes"}

// parseAnswer reads and validates a summary answer. Lists may be empty, and
// a lone string stands for a one-item list; title and content may not be
// empty.
func parseAnswer(tok scoring.Tokenizer, text string, level int) (llmAnswer, error) {
	fields, err := jsonObject(text)
	if err != nil {
		return llmAnswer{}, err
	}
	return answerFrom(tok, fields, level)
}

func answerFrom(tok scoring.Tokenizer, fields map[string]json.RawMessage, level int) (llmAnswer, error) {
	for _, f := range answerFields {
		if _, ok := fields[f]; !ok {
			return llmAnswer{}, fmt.Errorf("missing field %q", f)
		}
	}
	var a llmAnswer
	var err error
	if a.Title, err = textField(fields, "title"); err != nil {
		return a, err
	}
	if a.Content, err = textField(fields, "content"); err != nil {
		return a, err
	}
	for name, dst := range map[string]*[]string{"outcomes": &a.Outcomes, "keywords": &a.Keywords, "entities": &a.Entities, "state_changes": &a.StateChanges} {
		if *dst, err = listField(fields, name); err != nil {
			return a, err
		}
	}
	if n := utf8.RuneCountInString(a.Title); n > llmTitleRunes {
		return a, fmt.Errorf("oversized answer: the title is %d characters (limit %d)", n, llmTitleRunes)
	}
	if n, limit := tok.Count(a.Content), llmContentTokens[level]; n > limit {
		return a, fmt.Errorf("oversized answer: the content is %d tokens (limit %d at L%d)", n, limit, level)
	}
	return a, nil
}

// jsonObject decodes the answer's JSON object. Endpoints without a JSON
// mode often wrap it in a Markdown fence or a sentence; those are removed.
func jsonObject(text string) (map[string]json.RawMessage, error) {
	s := strings.TrimSpace(text)
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i > 0 && j > i {
		s = s[i : j+1]
	}
	if s == "" {
		return nil, fmt.Errorf("%w: the answer is empty", errInvalidJSON)
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalidJSON, err)
	}
	if fields == nil {
		return nil, fmt.Errorf("%w: the answer is not an object", errInvalidJSON)
	}
	return fields, nil
}

func textField(fields map[string]json.RawMessage, name string) (string, error) {
	var s string
	if err := json.Unmarshal(fields[name], &s); err != nil {
		return "", fmt.Errorf("field %q is not a string", name)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("field %q is empty", name)
	}
	return s, nil
}

// listField reads a list of strings, dropping empty items and cutting long
// ones; null is an empty list.
func listField(fields map[string]json.RawMessage, name string) ([]string, error) {
	raw := bytes.TrimSpace(fields[name])
	var items []string
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("field %q is not a list of strings", name)
		}
		items = []string{s}
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("field %q is not a list of strings", name)
	}
	out := []string{}
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" && len(out) < llmListItems {
			out = append(out, clipRunes(oneLine(it), llmItemRunes))
		}
	}
	return out, nil
}

// parseCheck reads a self-check answer: the missing facts and, when there
// are some, the amended summary (nil if the model gave none or an invalid
// one: the caller then adds the facts itself).
func parseCheck(tok scoring.Tokenizer, text string, level int) ([]string, *llmAnswer, error) {
	fields, err := jsonObject(text)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := fields["missing"]; !ok {
		return nil, nil, errors.New(`missing field "missing"`)
	}
	missing, err := listField(fields, "missing")
	if err != nil || len(missing) == 0 {
		return nil, nil, err
	}
	var amended map[string]json.RawMessage
	if json.Unmarshal(fields["amended"], &amended) != nil || amended == nil {
		return missing, nil, nil
	}
	a, err := answerFrom(tok, amended, level)
	if err != nil {
		return missing, nil, nil
	}
	return missing, &a, nil
}
