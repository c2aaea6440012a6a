package scoring

import (
	"strings"
	"sync"
	"testing"
)

func TestTokenizerKnownCounts(t *testing.T) {
	t.Parallel()
	// Each count is derivable from the encoding's pre-tokenisation regex and
	// matches tiktoken's published encodings, e.g. "hello world" is
	// ["hello", " world"] = [24912, 2375] in o200k_base and
	// [15339, 1917] in cl100k_base; digits split in runs of three.
	tests := []struct {
		enc  string
		text string
		want int
	}{
		{"o200k_base", "", 0},
		{"o200k_base", "hello world", 2},
		{"o200k_base", "Hello, world!", 4},
		{"o200k_base", "tiktoken is great!", 6},
		{"o200k_base", "1234567", 3},
		{"o200k_base", " ", 1},
		{"o200k_base", "<|endoftext|>", 7}, // special tokens count as text
		{"cl100k_base", "", 0},
		{"cl100k_base", "hello world", 2},
		{"cl100k_base", "tiktoken is great!", 6},
		{"cl100k_base", "1234567", 3},
		{"cl100k_base", "héllo 世界", 7},
		{"o200k_base", "héllo 世界", 3},
	}
	for _, tt := range tests {
		t.Run(tt.enc+"/"+tt.text, func(t *testing.T) {
			t.Parallel()
			tk := mustTokenizer(t, tt.enc)
			if got := tk.Count(tt.text); got != tt.want {
				t.Errorf("%s.Count(%q) = %d, want %d", tt.enc, tt.text, got, tt.want)
			}
		})
	}
}

func TestTokenizerCountMatchesEncode(t *testing.T) {
	t.Parallel()
	texts := []string{
		"hello world", sampleThought, sampleOutput, "  leading and trailing  ",
		"mixed\r\nline\tendings\n\n\n", "emoji 🙂🚀 and CJK 漢字かな", "\xff\xfe invalid utf-8",
	}
	for _, enc := range acceptedEncodings {
		tk := mustTokenizer(t, enc)
		codec := mustReference(t, enc).codec
		for _, s := range texts {
			ids, _, err := codec.Encode(s)
			if err != nil {
				t.Fatalf("%s: Encode(%q): %v", enc, s, err)
			}
			if got := tk.Count(s); got != len(ids) {
				t.Errorf("%s: Count(%.20q) = %d, len(Encode) = %d", enc, s, got, len(ids))
			}
		}
	}
}

func TestNewTokenizerNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		wantName string
		wantErr  bool
	}{
		{"", DefaultEncoding, false},
		{"o200k_base", "o200k_base", false},
		{"cl100k_base", "cl100k_base", false},
		{" CL100K_BASE ", "cl100k_base", false},
		{"p50k_base", "", true},
		{"gpt-4o", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tk, err := NewTokenizer(tt.name)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewTokenizer(%q) = %v, want an error", tt.name, tk.Name())
				}
				for _, accepted := range []string{"o200k_base", "cl100k_base"} {
					if !strings.Contains(err.Error(), accepted) {
						t.Errorf("error %q does not list %s", err, accepted)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("NewTokenizer(%q): %v", tt.name, err)
			}
			if tk.Name() != tt.wantName {
				t.Errorf("Name() = %q, want %q", tk.Name(), tt.wantName)
			}
		})
	}
}

func TestNewTokenizerSameInstance(t *testing.T) {
	t.Parallel()
	a := mustTokenizer(t, "")
	b := mustTokenizer(t, "o200k_base")
	c := mustTokenizer(t, "cl100k_base")
	if a != b {
		t.Error(`NewTokenizer("") and NewTokenizer("o200k_base") returned different tokenizers`)
	}
	if a == c {
		t.Error("o200k_base and cl100k_base share a tokenizer")
	}
}

func TestTokenizerConcurrent(t *testing.T) {
	t.Parallel()
	tk := mustTokenizer(t, "")
	want := tk.Count(sampleOutput)
	var wg sync.WaitGroup
	errs := make(chan int, 16)
	for range 16 {
		wg.Go(func() {
			tk, err := NewTokenizer("")
			if err != nil {
				errs <- -1
				return
			}
			if got := tk.Count(sampleOutput); got != want {
				errs <- got
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent Count = %d, want %d", got, want)
	}
}

func BenchmarkCount(b *testing.B) {
	tk := mustTokenizer(b, "")
	b.SetBytes(int64(len(sampleThought)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Count(sampleThought)
	}
}
