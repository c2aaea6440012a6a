package scoring

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer counts tokens the way a model's BPE vocabulary does.
type Tokenizer interface {
	// Count returns the number of tokens s encodes to.
	Count(s string) int
	// Name returns the encoding name, such as "o200k_base".
	Name() string
}

// DefaultEncoding is the encoding NewTokenizer uses when given an empty name.
// o200k_base is the vocabulary of the GPT-4o, GPT-4.1, o-series and GPT-5
// model families.
const DefaultEncoding = "o200k_base"

// bpeTokenizer adapts a tiktoken-go codec to Tokenizer. The codec is never
// reconfigured after construction, so it is safe for concurrent use.
type bpeTokenizer struct {
	name  string
	codec tokenizer.Codec
}

// encodingLoaders build each supported encoding at most once per process.
// The map itself is never written after initialisation.
var encodingLoaders = map[string]func() *bpeTokenizer{
	"o200k_base":  sync.OnceValue(func() *bpeTokenizer { return load(tokenizer.O200kBase) }),
	"cl100k_base": sync.OnceValue(func() *bpeTokenizer { return load(tokenizer.Cl100kBase) }),
}

// acceptedEncodings lists the keys of encodingLoaders, sorted, for errors.
var acceptedEncodings = []string{"cl100k_base", "o200k_base"}

// load builds a tokenizer for a built-in encoding. tokenizer.Get only fails
// for unknown encodings, and both encodings offered here are built in.
func load(enc tokenizer.Encoding) *bpeTokenizer {
	c, err := tokenizer.Get(enc)
	if err != nil {
		panic(fmt.Sprintf("scoring: built-in encoding %s: %v", enc, err))
	}
	return &bpeTokenizer{name: string(enc), codec: c}
}

// NewTokenizer returns a BPE tokenizer for an encoding name: "o200k_base"
// (the default when name is "") or "cl100k_base". Names are matched
// case-insensitively after trimming spaces; any other name is an error that
// lists the accepted ones.
//
// The vocabularies are embedded in the binary, so this works offline. Loading
// an encoding takes tens of milliseconds, so each is loaded at most once per
// process: every call for the same encoding returns the same Tokenizer, which
// is safe for concurrent use.
func NewTokenizer(name string) (Tokenizer, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		key = DefaultEncoding
	}
	get, ok := encodingLoaders[key]
	if !ok {
		return nil, fmt.Errorf("scoring: unknown token encoding %q (accepted: %s)",
			name, strings.Join(acceptedEncodings, ", "))
	}
	return get(), nil
}

// Count returns the number of tokens of the encoding of s, exactly the
// length of the codec's Encode(s). Special-token text such as
// "<|endoftext|>" is counted as ordinary text, as when a model reads it from
// a tool output. If the codec ever failed internally (it cannot with the
// settings used here) Count falls back to a conservative estimate of one token
// per three bytes rather than reporting zero.
func (t *bpeTokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := t.codec.Count(s)
	if err != nil {
		return (len(s) + 2) / 3
	}
	return n
}

// Name returns the encoding name, such as "o200k_base".
func (t *bpeTokenizer) Name() string { return t.name }
