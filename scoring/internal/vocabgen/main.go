// Command vocabgen writes the BPE vocabularies that package scoring embeds.
//
// For each encoding it reads every ordinary token from tiktoken-go's public
// API (Decode of one id at a time), checks the result and writes
// <dir>/<encoding>.bin in the form of package bpevocab.
//
// Run it through go generate in package scoring.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/scoring/internal/bpevocab"
	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// maxProbeID bounds the ids probed with Decode, far above those of both
// encodings (the highest is o200k_base's special token 200018).
const maxProbeID = 1 << 20

// splitPatterns are tiktoken-go's pre-tokenization patterns. Importing
// tiktoken-go registers its compiled form of each, so MustCompile returns the
// very matcher its Encode uses.
var splitPatterns = map[string]string{
	"o200k_base":  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

func main() {
	dir := flag.String("out", "vocab", "directory to write <encoding>.bin into")
	flag.Parse()
	for _, enc := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		if err := generate(enc, *dir); err != nil {
			fmt.Fprintf(os.Stderr, "vocabgen: %s: %v\n", enc, err)
			os.Exit(1)
		}
	}
}

// generate reads, checks and writes one encoding.
func generate(enc tokenizer.Encoding, dir string) error {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return err
	}
	tokens, err := readTokens(codec)
	if err != nil {
		return err
	}
	if err := check(codec, tokens); err != nil {
		return err
	}
	data, err := bpevocab.Build(tokens)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, string(enc)+".bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d tokens, %d bytes\n", path, len(tokens), len(data))
	return nil
}

// readTokens decodes every id that is an ordinary token and returns the
// tokens in id (rank) order. Decode fails for special tokens and unused ids;
// the ordinary ids must be 0..N-1 exactly.
func readTokens(codec tokenizer.Codec) ([]string, error) {
	var tokens []string
	for id := range uint(maxProbeID) {
		s, err := codec.Decode([]uint{id})
		if err != nil {
			continue
		}
		if s == "" {
			return nil, fmt.Errorf("id %d decodes to nothing", id)
		}
		if int(id) != len(tokens) {
			return nil, fmt.Errorf("id %d decodes but id %d does not", id, len(tokens))
		}
		tokens = append(tokens, s)
	}
	if len(tokens) < 256 {
		return nil, fmt.Errorf("only %d tokens decode", len(tokens))
	}
	return tokens, nil
}

// check verifies that the tokens are raw bytes, cover every single byte, and
// that each token that tiktoken-go's pre-tokenizer keeps as one piece encodes
// back to its own id. The others cannot be re-encoded alone: tokens that are
// not valid UTF-8 (tiktoken-go reads text as runes, so stray bytes become
// U+FFFD), and tokens the split cuts in several pieces or skips, such as
// "\n  \n" or "\x7f".
func check(codec tokenizer.Codec, tokens []string) error {
	split := regexp2.MustCompile(splitPatterns[codec.GetName()], regexp2.None)
	var singles [256]bool
	invalid, multi := 0, 0
	for id, tok := range tokens {
		if len(tok) == 1 {
			singles[tok[0]] = true
		}
		if !utf8.ValidString(tok) {
			invalid++
			continue
		}
		if !onePiece(split, tok) {
			multi++
			continue
		}
		ids, _, err := codec.Encode(tok)
		if err != nil {
			return fmt.Errorf("Encode(%q): %v", tok, err)
		}
		if len(ids) != 1 || ids[0] != uint(id) {
			return fmt.Errorf("token %d %q encodes to %v", id, tok, ids)
		}
	}
	for b, ok := range singles {
		if !ok {
			return fmt.Errorf("no token for the single byte %#x", b)
		}
	}
	if invalid == 0 {
		return errors.New("no token is invalid UTF-8: Decode does not return raw bytes")
	}
	fmt.Printf("%s: %d tokens re-encoded to their id; not re-encodable: %d not valid UTF-8, %d not one piece\n",
		codec.GetName(), len(tokens)-invalid-multi, invalid, multi)
	return nil
}

// onePiece reports whether the first piece split cuts from s is all of s.
func onePiece(split *regexp2.Regexp, s string) bool {
	m, err := split.FindStringMatch(s)
	return err == nil && m != nil && m.String() == s
}
