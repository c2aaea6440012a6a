package scoring

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestVocabularyRoundTrip(t *testing.T) {
	t.Parallel()
	wantSizes := map[string]int{"o200k_base": 199998, "cl100k_base": 100256}
	for _, enc := range acceptedEncodings {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			v := &mustTokenizer(t, enc).(*bpeTokenizer).vocab
			ref := mustReference(t, enc)
			if v.Len() != wantSizes[enc] {
				t.Errorf("%d tokens, want %d", v.Len(), wantSizes[enc])
			}
			for id := range v.Len() {
				tok := v.Token(id)
				if got, ok := v.Rank(tok); !ok || int(got) != id {
					t.Fatalf("Rank(%q) = %d, %v; want %d", tok, got, ok, id)
				}
				if dec, err := ref.codec.Decode([]uint{uint(id)}); err != nil || dec != tok {
					t.Fatalf("tiktoken-go decodes %d to %q (%v), the table has %q", id, dec, err, tok)
				}
			}
			if dec, err := ref.codec.Decode([]uint{uint(v.Len())}); err == nil {
				t.Errorf("tiktoken-go has a token %d, %q, past the table", v.Len(), dec)
			}
			for _, s := range []string{"", "<|endoftext|>", strings.Repeat("x", 300)} {
				if r, ok := v.Rank(s); ok {
					t.Errorf("Rank(%q) = %d, want no token", s, r)
				}
			}
		})
	}
}

// parityCases are edge cases for the pre-tokenizers and the merge, and the
// seeds of FuzzCountParity.
var parityCases = []string{
	"", " ", "   ", "\t\t", "\n", "\r\n", "\r\n\r\n", "a \n\n \n b", "a  \n  \n  b",
	"x   \n\t\ty", "trailing   ", "  leading", "\v\f", "a\u0085b", "a\u00a0b", "a\u3000\u3000b",
	"1234567", "x1234567y", "٣٤٥٦", "Ⅻ½²", "3.14159", "v1.7.0",
	"I'll've", "I'LL", "don't", "'s", "'S 'T 'RE 'Ve 'm 'LL 'd", "'x", "'", "''", "'ſ", "I'ſ", "ǅungla ǅ",
	"<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>x<|fim_suffix|>",
	"\xff\xfe invalid", "\xe4\xb8", "a\xc3", "\xed\xa0\x80", "ok \uFFFD ok",
	"a\x7fb", "\x7f", " \x7f ", "\x00\x01\x1f",
	"👩‍👩‍👧‍👦", "🏳️‍🌈 flag", "👍🏽", "emoji 🙂🚀 and CJK 漢字かなカナ한국어",
	"e\u0301", "\u0301start", "x \u0301", "नमस्ते दुनिया", "สวัสดีครับ", "مرحبا بالعالم", "Привет, мир!",
	"HTTPServerError", "camelCaseWord", "ALLCAPS", "ÉCOLE École", "ß straße",
	"path/to/file.go:12", "// comment\n//", "==== ----\n\n", "a\r\n//\r\nb", "{\"k\": [1, 2]}\n",
	strings.Repeat("a", 10000), strings.Repeat("ab", 5000), strings.Repeat("🙂", 2500),
	strings.Repeat("=", 10000), strings.Repeat(" ", 10000), strings.Repeat("9", 10000),
	strings.Repeat("\n", 300), strings.Repeat("x\u0301", 3000), randomWord(10000),
}

// randomWord returns n pseudo-random base64 characters: a long piece with
// no spaces that BPE must merge from scratch.
func randomWord(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func TestCountParityEdgeCases(t *testing.T) {
	t.Parallel()
	for _, enc := range acceptedEncodings {
		for _, s := range parityCases {
			if err := parityError(t, enc, s); err != nil {
				t.Error(err)
			}
		}
	}
}

func FuzzCountParity(f *testing.F) {
	for _, s := range parityCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, enc := range acceptedEncodings {
			if err := parityError(t, enc, s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestCountParityRandomRunes compares short strings drawn from runes of
// every class the split patterns tell apart, in many combinations.
func TestCountParityRandomRunes(t *testing.T) {
	t.Parallel()
	atoms := []string{
		"a", "z", "A", "Q", "é", "É", "ß", "ǅ", "ʰ", "日", "א", "\u0301", "\u20dd", "\u0903",
		"0", "7", "٣", "Ⅻ", "½", " ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\u0085", "\u00a0", "\u2003", "\u3000",
		"'", "'s", "'ll", "'RE", "'ſ", "ſ", "/", "//", ".", ",", "!", "-", "_", "=", "(", "\"", "<|", "|>",
		"\x7f", "\x00", "\x1b", "\u200d", "🙂", "\U0001F3FD", "\ufffd", "\xff", "\xe4\xb8", "€", "¿",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range 1 + rng.IntN(12) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		for _, enc := range acceptedEncodings {
			if err := parityError(t, enc, b.String()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestMergeHeapMatchesScan(t *testing.T) {
	t.Parallel()
	v := &mustTokenizer(t, "").(*bpeTokenizer).vocab
	tk := mustTokenizer(t, "").(*bpeTokenizer)
	checked := 0
	for _, s := range []string{sampleThought, sampleOutput, randomWord(4096)} {
		for _, piece := range append(chunks(s, smallPiece), slicesOf(tk, s)...) {
			if scan, heap := v.mergeScan(piece), v.mergeHeap(piece); scan != heap {
				t.Errorf("%q: mergeScan %d parts, mergeHeap %d", piece, scan, heap)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d pieces checked", checked)
	}
}

// chunks cuts s into pieces of n bytes, the last one shorter.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// slicesOf returns the pieces tk cuts s into.
func slicesOf(tk *bpeTokenizer, s string) []string {
	var out []string
	for p := range tk.pieces(s) {
		out = append(out, p)
	}
	return out
}

// TestCountParityRuns compares runs of repeated characters: the same token
// can then merge at overlapping places, and which merge wins a tie of ranks
// (the leftmost) changes the count. Lengths past smallPiece exercise the heap.
func TestCountParityRuns(t *testing.T) {
	t.Parallel()
	const alphabet = "aeiostxyz-=._ 0"
	lengths := []int{1, 2, 3, 4, 5, 6, 7, 63, 64, 65, 66, 67, 99}
	for _, enc := range acceptedEncodings {
		for _, c1 := range alphabet {
			for _, c2 := range alphabet {
				for _, k := range lengths {
					for m := 1; m <= 3; m++ {
						s := "x" + strings.Repeat(string(c1), k) + strings.Repeat(string(c2), m)
						if err := countError(t, enc, s); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
}
