package scoring

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// splitPatterns are tiktoken-go's pre-tokenization patterns. The test binary
// imports tiktoken-go, which registers its compiled matcher for each, so
// regexp2.MustCompile returns the very matcher its Encode and Count use.
var splitPatterns = map[string]string{
	"o200k_base":  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// reference is tiktoken-go's implementation of one encoding, the oracle the
// parity tests compare with.
type reference struct {
	codec tokenizer.Codec
	split *regexp2.Regexp
}

// references loads each encoding's reference at most once per test binary:
// tiktoken-go takes tens of milliseconds to build a vocabulary.
var references = map[string]func() (*reference, error){
	"o200k_base":  sync.OnceValues(func() (*reference, error) { return loadReference(tokenizer.O200kBase) }),
	"cl100k_base": sync.OnceValues(func() (*reference, error) { return loadReference(tokenizer.Cl100kBase) }),
}

// loadReference builds the reference for enc.
func loadReference(enc tokenizer.Encoding) (*reference, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	// MustCompile, unlike Compile, picks up registered matchers.
	return &reference{codec: codec, split: regexp2.MustCompile(splitPatterns[string(enc)], regexp2.None)}, nil
}

// mustReference returns the reference for enc or stops the test.
func mustReference(tb testing.TB, enc string) *reference {
	tb.Helper()
	ref, err := references[enc]()
	if err != nil {
		tb.Fatalf("tiktoken-go %s: %v", enc, err)
	}
	return ref
}

// count returns tiktoken-go's count of s.
func (r *reference) count(s string) (int, error) { return r.codec.Count(s) }

// pieces returns the pieces tiktoken-go's matcher cuts s into.
func (r *reference) pieces(s string) ([]string, error) {
	var out []string
	m, err := r.split.FindStringMatch(s)
	for ; err == nil && m != nil; m, err = r.split.FindNextMatch(m) {
		out = append(out, m.String())
	}
	return out, err
}

// parityError compares our pieces and count of s with tiktoken-go's and
// describes the first difference, or returns nil.
func parityError(tb testing.TB, enc, s string) error {
	tb.Helper()
	if err := piecesError(tb, enc, s); err != nil {
		return err
	}
	return countError(tb, enc, s)
}

// countError compares our count of s with tiktoken-go's, describing the
// first differing piece if they differ, or returns nil.
func countError(tb testing.TB, enc, s string) error {
	tb.Helper()
	want, err := mustReference(tb, enc).count(s)
	if err != nil {
		return fmt.Errorf("tiktoken-go Count: %v", err)
	}
	if got := mustTokenizer(tb, enc).Count(s); got != want {
		if err := piecesError(tb, enc, s); err != nil {
			return err
		}
		return fmt.Errorf("%s: Count(%.80q) = %d, tiktoken-go %d", enc, s, got, want)
	}
	return nil
}

// piecesError compares our pieces of s with those of tiktoken-go's matcher
// and describes the first difference, or returns nil.
func piecesError(tb testing.TB, enc, s string) error {
	tb.Helper()
	want, err := mustReference(tb, enc).pieces(s)
	if err != nil {
		return fmt.Errorf("tiktoken-go split: %v", err)
	}
	got := slicesOf(mustTokenizer(tb, enc).(*bpeTokenizer), s)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			return fmt.Errorf("%s: piece %d of %.80q: ours %q, tiktoken-go %q",
				enc, i, s, at(got, i), at(want, i))
		}
	}
	return nil
}

// at returns pieces[i], or "<none>" past the end.
func at(pieces []string, i int) string {
	if i < len(pieces) {
		return pieces[i]
	}
	return "<none>"
}
