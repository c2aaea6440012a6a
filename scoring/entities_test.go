package scoring

import (
	"math"
	"testing"
)

func TestEntities(t *testing.T) {
	t.Parallel()
	type E = Entity
	tests := []struct {
		name string
		text string
		want []Entity
	}{
		{"path with hash-like name", "Wrote data/cache_3d5a4.json", []E{{EntityPath, "data/cache_3d5a4.json"}}},
		{"screaming case", "raise RETRY_BUDGET to 5", []E{{EntityIdent, "RETRY_BUDGET"}}},
		{"version", "pinned v8.20-1c1 and v1.7.0", []E{{EntityIdent, "v8.20-1c1"}, {EntityIdent, "v1.7.0"}}},
		{"record codes", "booking ZFA04Y on HAT136, not NASA, HTTP2, 2024 or A1B", []E{{EntityIdent, "ZFA04Y"}, {EntityIdent, "HAT136"}}},
		{"path", "Edited src/parser/core.py", []E{{EntityPath, "src/parser/core.py"}}},
		{"host port", "curl localhost:8080 now", []E{{EntityHostPort, "localhost:8080"}}},
		{"url with query", "GET https://example.com/api/v1?x=1 failed", []E{{EntityURL, "https://example.com/api/v1?x=1"}}},
		{"exception", "AssertionError: expected 3", []E{{EntityErrorCode, "AssertionError"}}},
		{"errno", "open failed with ENOENT", []E{{EntityErrorCode, "ENOENT"}}},
		{"milestone sentence has none", "Phase 2 completed.", nil},
		{"plain sentence has none", "The quick brown fox jumps over the lazy dog, then Rests.", nil},
		{"trailing period after path", "The bug is in src/parser/core.py.", []E{{EntityPath, "src/parser/core.py"}}},
		{"trailing punctuation trimmed", "(see config.yaml), [README.md]; 'ok'", []E{{EntityFile, "config.yaml"}, {EntityFile, "README.md"}, {EntityQuoted, "ok"}}},
		{"rooted paths", "./x /etc/hosts ~/.config/x ../lib/util.go", []E{
			{EntityPath, "./x"}, {EntityPath, "/etc/hosts"}, {EntityPath, "~/.config/x"}, {EntityPath, "../lib/util.go"}}},
		{"path line suffix dropped", "src/kestrel/lru.py:88: AssertionError", []E{{EntityPath, "src/kestrel/lru.py"}, {EntityErrorCode, "AssertionError"}}},
		{"file line suffix dropped", "at core.py:42:5", []E{{EntityFile, "core.py"}}},
		{"host port kinds", "localhost:8080, 10.0.0.5:5432 and db.internal:5432.", []E{
			{EntityHostPort, "localhost:8080"}, {EntityHostPort, "10.0.0.5:5432"}, {EntityHostPort, "db.internal:5432"}}},
		{"not host ports", "at 12:30:45 on 2024-01-02T12:30:45Z, ratio 3:2, port :8080", nil},
		{"identifiers", "parseHeader HTTPClient parse_header kestrel.ingest.parser __init__", []E{
			{EntityIdent, "parseHeader"}, {EntityIdent, "HTTPClient"}, {EntityIdent, "parse_header"},
			{EntityIdent, "kestrel.ingest.parser"}, {EntityIdent, "__init__"}}},
		{"not identifiers", "HTTP JSON TODO URLs IDs e.g. i.e. a.m. Parser Done 3.14 10.0.0.5 42", nil},
		{"not paths", "and/or I/O read/write N/A TCP/IP 1/2", nil},
		{"relative path shapes", "src/parser internal/db/ node_modules/x foo/bar.txt", []E{
			{EntityPath, "src/parser"}, {EntityPath, "internal/db"}, {EntityPath, "node_modules/x"}, {EntityPath, "foo/bar.txt"}}},
		{"error codes", "E1234 ERR_MODULE_NOT_FOUND ECONNREFUSED KeyError ValueError java.lang.NullPointerException", []E{
			{EntityErrorCode, "E1234"}, {EntityErrorCode, "ERR_MODULE_NOT_FOUND"}, {EntityErrorCode, "ECONNREFUSED"},
			{EntityErrorCode, "KeyError"}, {EntityErrorCode, "ValueError"}, {EntityErrorCode, "java.lang.NullPointerException"}}},
		{"not error codes", "Error Exception EXIT ELSE error", nil},
		{"http statuses", "got HTTP 503, then status 404 and status code 500; HTTP/1.1 502 Bad Gateway", []E{
			{EntityErrorCode, "HTTP 503"}, {EntityErrorCode, "HTTP 404"}, {EntityErrorCode, "HTTP 500"}, {EntityErrorCode, "HTTP 502"}}},
		{"success status is not an error", "HTTP 200 and status 302 after 404 retries", nil},
		{"quoted names", "set `max_entries`, mode \"strict\", flag 'fast' and `go test ./...`", []E{
			{EntityIdent, "max_entries"}, {EntityQuoted, "strict"}, {EntityQuoted, "fast"}}},
		{"quoted path keeps its kind", `File "/usr/lib/python3.11/json/decoder.py", line 3`, []E{{EntityPath, "/usr/lib/python3.11/json/decoder.py"}}},
		{"quoted limits", "\"x\" \"" + "abcdefghij" + "abcdefghij" + "abcdefghij" + "abcdefghij" + "abcdefghij" + "abcdefghij" + "k\" \"42\" \"two words\"", nil},
		{"apostrophes are not quotes", "don't touch the parser's cache, it's fine", nil},
		{"json keys are not quoted names", `{"path": "src/a.py", "mode": "append"}`, []E{{EntityPath, "src/a.py"}, {EntityQuoted, "append"}}},
		{"url is not also a path", "fetch https://example.com/a/b.json.", []E{{EntityURL, "https://example.com/a/b.json"}}},
		{"url in parentheses", "(http://x.io/docs)", []E{{EntityURL, "http://x.io/docs"}}},
		{"path not also its file name", "core.py is at src/parser/core.py; core.py again", []E{{EntityPath, "src/parser/core.py"}}},
		{"deduplicated in order", "RETRY_BUDGET config.yaml RETRY_BUDGET config.yaml", []E{{EntityIdent, "RETRY_BUDGET"}, {EntityFile, "config.yaml"}}},
		{"well-known files", "edit Makefile, Dockerfile and .gitignore, .bashrc", []E{
			{EntityFile, "Makefile"}, {EntityFile, "Dockerfile"}, {EntityFile, ".gitignore"}, {EntityFile, ".bashrc"}}},
		{"markdown emphasis", "**config.yaml** and *parse_header*", []E{{EntityFile, "config.yaml"}, {EntityIdent, "parse_header"}}},
		{"possessive", "RETRY_BUDGET's value", []E{{EntityIdent, "RETRY_BUDGET"}}},
		{"assignments", "RETRY_BUDGET=3 --config=conf/app.yaml", []E{{EntityIdent, "RETRY_BUDGET"}, {EntityPath, "conf/app.yaml"}}},
		{"colon-joined list of paths", "PATH=/usr/bin:/usr/local/bin", []E{{EntityPath, "/usr/bin"}, {EntityPath, "/usr/local/bin"}}},
		{"unicode punctuation", "“config.yaml” → parse_header…", []E{{EntityFile, "config.yaml"}, {EntityIdent, "parse_header"}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Entities(tt.text)
			if !entitiesEqual(got, tt.want) {
				t.Errorf("Entities(%q)\n got %v\nwant %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestEntitiesToolOutput(t *testing.T) {
	t.Parallel()
	got := Entities(sampleOutput)
	want := []Entity{
		{EntityPath, "/home/agent/kestrel"},
		{EntityFile, "pyproject.toml"},
		{EntityPath, "tests/test_cache.py"},
		{EntityIdent, "test_eviction_order"},
		{EntityIdent, "CacheLayer"},
		{EntityIdent, "max_entries"},
		{EntityQuoted, "lru"},
		{EntityIdent, "cache.evict"},
		{EntityIdent, "key_a"},
		{EntityErrorCode, "AssertionError"},
		{EntityIdent, "key_b"},
		{EntityPath, "src/kestrel/cache/lru.py"},
		{EntityErrorCode, "ConnectionRefusedError"},
		{EntityErrorCode, "ECONNREFUSED"},
		{EntityHostPort, "localhost:8080"},
		{EntityIdent, "v1.7.0"},
	}
	if !entitiesEqual(got, want) {
		t.Errorf("Entities(sampleOutput)\n got %v\nwant %v", got, want)
	}
	for range 3 {
		if again := Entities(sampleOutput); !entitiesEqual(again, got) {
			t.Fatalf("Entities is not deterministic:\n%v\n%v", got, again)
		}
	}
}

func TestSpecificity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    Entity
		want float64
	}{
		{Entity{EntityURL, "https://example.com/a"}, 1},
		{Entity{EntityPath, "src/parser/core.py"}, 1},
		{Entity{EntityPath, "/tmp"}, 0.95},
		{Entity{EntityPath, "./x"}, 0.95},
		{Entity{EntityHostPort, "localhost:8080"}, 0.9},
		{Entity{EntityFile, "config.yaml"}, 0.8},
		{Entity{EntityIdent, "key_a"}, 0.7},
		{Entity{EntityIdent, "parse_header"}, 0.725},                    // 12 runes
		{Entity{EntityIdent, "kestrel.ingest.parser.core.Reader"}, 0.8}, // capped
		{Entity{EntityErrorCode, "ENOENT"}, 0.6},
		{Entity{EntityQuoted, "strict"}, 0.5},
		{Entity{EntityKind("other"), "x"}, 0},
	}
	for _, tt := range tests {
		if got := Specificity(tt.e); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Specificity(%v) = %v, want %v", tt.e, got, tt.want)
		}
	}
}

func TestSpecificityOrder(t *testing.T) {
	t.Parallel()
	// The kinds rank as documented, whatever the value.
	order := []Entity{
		{EntityURL, "https://a.io/x"}, {EntityHostPort, "a.io:80"}, {EntityFile, "a.go"},
		{EntityIdent, "key_a"}, {EntityErrorCode, "E1234"}, {EntityQuoted, "ab"},
	}
	for i := 1; i < len(order); i++ {
		if a, b := Specificity(order[i-1]), Specificity(order[i]); !(a > b) {
			t.Errorf("Specificity(%v) = %v, not above Specificity(%v) = %v", order[i-1], a, order[i], b)
		}
	}
}

func BenchmarkEntities(b *testing.B) {
	b.SetBytes(int64(len(sampleOutput)))
	b.ReportAllocs()
	for b.Loop() {
		Entities(sampleOutput)
	}
}
