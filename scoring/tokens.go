package scoring

import (
	"fmt"
	"iter"
	"strings"
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

// bpeTokenizer counts tokens with an embedded vocabulary and its encoding's
// pre-tokenizer. It holds no mutable state, so it is safe for concurrent use.
type bpeTokenizer struct {
	name  string
	vocab vocabulary
	// piece returns the end of the piece starting at s[i], or -1 if the
	// split pattern matches nothing there.
	piece func(s string, i int) int
}

// The supported encodings. Building each reads its vocabulary header only.
var (
	o200kBase  = &bpeTokenizer{name: "o200k_base", vocab: mustVocabulary(o200kBaseData), piece: o200kPiece}
	cl100kBase = &bpeTokenizer{name: "cl100k_base", vocab: mustVocabulary(cl100kBaseData), piece: cl100kPiece}
)

// acceptedEncodings lists the supported encoding names, sorted, for errors.
var acceptedEncodings = []string{"cl100k_base", "o200k_base"}

// NewTokenizer returns a BPE tokenizer for an encoding name: "o200k_base"
// (the default when name is "") or "cl100k_base". Names are matched
// case-insensitively after trimming spaces; any other name is an error that
// lists the accepted ones.
//
// The vocabularies are embedded in the binary in a form that is searched in
// place, so this works offline and costs nothing at start-up. Every call for
// the same encoding returns the same Tokenizer, which is safe for concurrent
// use. Counts equal those of tiktoken-go v0.10.0, quirks included.
func NewTokenizer(name string) (Tokenizer, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", DefaultEncoding:
		return o200kBase, nil
	case "cl100k_base":
		return cl100kBase, nil
	}
	return nil, fmt.Errorf("scoring: unknown token encoding %q (accepted: %s)",
		name, strings.Join(acceptedEncodings, ", "))
}

// Count returns the number of tokens s encodes to. Special-token text such
// as "<|endoftext|>" is counted as ordinary text, as when a model reads it
// from a tool output.
func (t *bpeTokenizer) Count(s string) int {
	n := 0
	for piece := range t.pieces(s) {
		n += t.vocab.countPiece(piece)
	}
	return n
}

// pieces yields the pre-tokenized pieces of s. Bytes that are not valid
// UTF-8 read as U+FFFD; a rune the split pattern does not match (DEL) is
// skipped.
func (t *bpeTokenizer) pieces(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		s := runeText(s)
		for i := 0; i < len(s); {
			end := t.piece(s, i)
			if end < 0 {
				_, n := classAt(s, i)
				i += n
				continue
			}
			if !yield(s[i:end]) {
				return
			}
			i = end
		}
	}
}

// Name returns the encoding name, such as "o200k_base".
func (t *bpeTokenizer) Name() string { return t.name }
