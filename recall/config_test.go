package recall

import (
	"math"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", DefaultConfig(), true},
		{"zero means defaults", Config{}, true},
		{"a limit within max_hits", Config{Limit: 5, MaxHits: 10}, true},
		{"a limit within the default max_hits", Config{Limit: 50}, true},
		{"a limit past max_hits", Config{Limit: 50, MaxHits: 10}, false},
		{"a limit past the default max_hits", Config{Limit: 101}, false},
		{"a negative limit", Config{Limit: -1}, false},
		{"negative max_hits", Config{MaxHits: -1}, false},
		{"no context", Config{Context: -1}, true},
		{"too much context", Config{Context: 9}, false},
		{"negative focus", Config{Focus: -2}, false},
		{"a threshold past 1", Config{ImplicitThreshold: 1.5}, false},
		{"the index caught up on every step", Config{IndexEvery: 1}, true},
		{"the index caught up every 1,024 iterations", Config{IndexEvery: 1024}, true},
		{"the index left behind longer", Config{IndexEvery: 1025}, false},
		{"a negative index_every", Config{IndexEvery: -1}, false},
		{"no second hop", Config{SecondHop: -1}, true},
		{"a second hop of 64 words", Config{SecondHop: 64}, true},
		{"a second hop past 64 words", Config{SecondHop: 65}, false},
		{"no nearby signal", Config{Nearby: -1}, true},
		{"nearby over 64 iterations", Config{Nearby: 64}, true},
		{"nearby past 64 iterations", Config{Nearby: 65}, false},
		{"no concept signal", Config{Concepts: -1}, true},
		{"concepts weighed as much as words", Config{Concepts: 1}, true},
		{"concepts past 4", Config{Concepts: 4.5}, false},
		{"concepts not a number", Config{Concepts: math.NaN()}, false},
	} {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: %+v gives %v", tc.name, tc.cfg, err)
		}
	}
}
