package recall

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// linesTokenizer names the tokenizer of the entity and span fields: each
// line of the value is one token. A document's entities go into a field as
// one value, a line each, rather than as a list: bleve makes a field of
// each list element, and analyses and counts each on its own, which cost
// more than the text. Terms, their counts and the field's length (what
// scoring reads) are the same either way; only the positions differ, and
// these fields keep none.
const linesTokenizer = "delta_lines"

func init() {
	registry.RegisterTokenizer(linesTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return lineTokenizer{}, nil
	})
}

// lineTokenizer is the tokenizer named linesTokenizer. Empty lines make
// no token.
type lineTokenizer struct{}

// Tokenize makes a token of each non-empty line of input.
func (lineTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	start := 0
	for i := 0; i <= len(input); i++ {
		if i < len(input) && input[i] != '\n' {
			continue
		}
		if i > start {
			out = append(out, &analysis.Token{Term: input[start:i], Start: start, End: i, Position: len(out) + 1, Type: analysis.AlphaNumeric})
		}
		start = i + 1
	}
	return out
}

// joinLines joins values a line each, for a field analysed by
// linesTokenizer. A line end inside a value would split it, so it becomes
// a space (entity values have none: the scanner cuts tokens there).
func joinLines(values []string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.ReplaceAll(v, "\n", " "))
	}
	return b.String()
}
