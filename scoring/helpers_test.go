package scoring

import (
	"strings"
	"testing"
)

// sampleThought is about 2 KB of agent prose with identifiers mixed in, the
// typical input of Count and Terms.
var sampleThought = strings.Repeat(`The failing test is tests/test_cache.py::test_eviction_order. `+
	`I suspect CacheLayer.evict() in src/kestrel/cache/lru.py drops the wrong key when `+
	`RETRY_BUDGET is exhausted; parseHeader returns early on HTTP 503 from db.internal:5432. `+
	`Phase 2 completed: parser fixed. Next I will patch config.yaml and rerun pytest -x. `, 8)[:2048]

// sampleOutput is about 2 KB of tool output: a pytest run with a traceback,
// the typical input of Entities.
var sampleOutput = strings.Repeat(`============================= test session starts ==============================
platform linux -- Python 3.11.4, pytest-7.4.0, pluggy-1.2.0
rootdir: /home/agent/kestrel, configfile: pyproject.toml
collected 42 items

tests/test_cache.py ....F.....                                           [ 23%]

=================================== FAILURES ===================================
____________________________ test_eviction_order ______________________________

    def test_eviction_order():
        cache = CacheLayer(max_entries=2, policy="lru")
>       assert cache.evict() == "key_a"
E       AssertionError: assert 'key_b' == 'key_a'

src/kestrel/cache/lru.py:88: AssertionError
FAILED tests/test_cache.py::test_eviction_order - AssertionError: assert 'key_b'
ConnectionRefusedError: [Errno 111] ECONNREFUSED localhost:8080 v1.7.0
`, 3)[:2048]

// entitiesEqual reports whether two entity lists are equal.
func entitiesEqual(a, b []Entity) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mustTokenizer returns the tokenizer for name or stops the test.
func mustTokenizer(tb testing.TB, name string) Tokenizer {
	tb.Helper()
	tk, err := NewTokenizer(name)
	if err != nil {
		tb.Fatalf("NewTokenizer(%q): %v", name, err)
	}
	return tk
}
