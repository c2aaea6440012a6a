package scoring

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"stopwords and short words dropped", "The cat sat on the mat and we need to check it now.", []string{"cat", "sat", "mat"}},
		{"agent words dropped", "Let me run the command and look at the output file.", nil},
		{"lower-cased, duplicates kept in order", "Parser parser PARSER tokenizer", []string{"parser", "parser", "parser", "tokenizer"}},
		{"snake_case whole and parts", "fix parse_header_value", []string{"fix", "parse_header_value", "parse", "header", "value"}},
		{"camelCase whole and parts", "patch parseHeader", []string{"patch", "parseheader", "parse", "header"}},
		{"acronym run in PascalCase", "JSONDecoder", []string{"jsondecoder", "json", "decoder"}},
		{"dotted name", "kestrel.ingest.parser failed", []string{"kestrel.ingest.parser", "kestrel", "ingest", "parser", "failed"}},
		{"path whole and parts, short part dropped", "edit src/parser/core.py.", []string{"edit", "src/parser/core.py", "src", "parser", "core"}},
		{"absolute path keeps its slash", "/etc/hosts", []string{"/etc/hosts", "hosts"}},
		{"url whole and parts", "see https://example.com/api/v1?x=1.", []string{"https://example.com/api/v1?x=1", "example", "api"}},
		{"pure numbers dropped", "42 3.14 10.0.0.5 1e10 2024-01-02", nil},
		{"hex hashes dropped", "commit 3f2a9c1d4e5b6a7c and deadbeef12", []string{"commit"}},
		{"short hex kept as word", "cafe", []string{"cafe"}},
		{"hyphenated compound split, not kept whole", "cache-eviction well-known", []string{"cache", "eviction", "known"}},
		{"version kept whole", "bump to v1.7.0 now", []string{"bump", "v1.7.0"}},
		{"abbreviations are not identifiers", "e.g. i.e. U.S. and/or I/O", nil},
		{"timings are not identifiers", "passed in 0.01s", []string{"passed"}},
		{"option dashes trimmed", "pytest --maxfail=1 -x", []string{"pytest", "maxfail"}},
		{"contractions leave no stems", "don't won't isn't it's", nil},
		{"unicode words", "Größe naïve café ünïcode", []string{"größe", "naïve", "café", "ünïcode"}},
		{"unicode camelCase", "straßeName", []string{"straßename", "straße", "name"}},
		{"identifier with hash part", "data/cache_3d5a4.json", []string{"data/cache_3d5a4.json", "data", "cache", "json"}},
		{"words need three letters", "go db io sql", []string{"sql"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Terms(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTermsDeterministic(t *testing.T) {
	t.Parallel()
	first := Terms(sampleOutput)
	if len(first) == 0 {
		t.Fatal("Terms(sampleOutput) is empty")
	}
	for range 5 {
		if got := Terms(sampleOutput); !slices.Equal(got, first) {
			t.Fatalf("Terms is not deterministic:\n%q\n%q", first, got)
		}
	}
}

func TestTermsHTTPIsStopword(t *testing.T) {
	t.Parallel()
	// "http" alone is a stopword, but an identifier containing it is kept.
	got := Terms("http http_proxy")
	want := []string{"http_proxy", "proxy"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func BenchmarkTerms(b *testing.B) {
	b.SetBytes(int64(len(sampleThought)))
	b.ReportAllocs()
	for b.Loop() {
		Terms(sampleThought)
	}
}

func TestIsStopword(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]bool{"the": true, "The": true, "FILE": true, "economy": false, "HAT136": false, "src/app.py": false} {
		if got := IsStopword(w); got != want {
			t.Errorf("IsStopword(%q) = %v, want %v", w, got, want)
		}
	}
}
