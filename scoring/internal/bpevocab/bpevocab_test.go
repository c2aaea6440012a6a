package bpevocab

import (
	"fmt"
	"strings"
	"testing"
)

func TestBuildOpenRoundTrip(t *testing.T) {
	t.Parallel()
	var tokens []string
	for b := range 256 {
		tokens = append(tokens, string([]byte{byte(b)})) // every single byte
	}
	for i := range 5000 {
		tokens = append(tokens, fmt.Sprintf(" w%d", i), strings.Repeat("ab", i%40+1)+fmt.Sprint(i))
	}
	data, err := Build(tokens)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(tokens) {
		t.Fatalf("Len() = %d, want %d", tab.Len(), len(tokens))
	}
	if 5*tab.Len() > 4<<tab.slotBits {
		t.Errorf("%d tokens in %d slots: over the maximum load", tab.Len(), 1<<tab.slotBits)
	}
	for r, tok := range tokens {
		if got := tab.Token(r); got != tok {
			t.Fatalf("Token(%d) = %q, want %q", r, got, tok)
		}
		if got, ok := tab.Rank(tok); !ok || int(got) != r {
			t.Fatalf("Rank(%q) = %d, %v; want %d", tok, got, ok, r)
		}
	}
	for _, miss := range []string{"", "\x00\x00", " w5000", "zz", strings.Repeat("ab", 41)} {
		if r, ok := tab.Rank(miss); ok {
			t.Errorf("Rank(%q) = %d, want a miss", miss, r)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	t.Parallel()
	for _, tokens := range [][]string{{"a", "b", "a"}, {"a", ""}} {
		if _, err := Build(tokens); err == nil {
			t.Errorf("Build(%q) succeeded, want an error", tokens)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	good, err := Build([]string{"a", "b", "ab"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(string(good)); err != nil {
		t.Fatalf("Open(Build(...)): %v", err)
	}
	for name, data := range map[string]string{
		"empty":     "",
		"truncated": string(good[:len(good)-1]),
		"longer":    string(good) + "x",
		"bad count": "\xff\xff\xff\x00" + string(good[4:]),
	} {
		if _, err := Open(data); err == nil {
			t.Errorf("Open(%s) succeeded, want an error", name)
		}
	}
}
