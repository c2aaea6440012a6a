package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowsTheLastSyncsCacheReuse: a sync keeps how much of the memory
// file it replaced the new one begins with; show and the HTML view report
// it, with where the first change is.
func TestShowsTheLastSyncsCacheReuse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	journal, memory := syncWorkspace(b, "synth")
	data, err := os.ReadFile(b.synthJournal(t, 120))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	ctx := context.Background()
	db := filepath.Join(b.dir, "ws", ".delta", "memory.db")
	var prev string
	for _, n := range []int{len(lines) - 12, len(lines)} {
		if err := os.WriteFile(journal, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := b.run(t, ctx, "memory", "sync", "--budget", "8000"); code != 0 {
			t.Fatalf("sync: exit %d, %s", code, stderr)
		}
		if n < len(lines) {
			prev = b.read(t, memory)
		}
	}
	cur := b.read(t, memory)
	kept := 0
	for kept < min(len(prev), len(cur)) && prev[kept] == cur[kept] {
		kept++
	}
	out, stderr, code := b.run(t, ctx, "memory", "show", "--db", db, "--budget", "8000", "--json")
	if code != 0 {
		t.Fatalf("show: exit %d, %s", code, stderr)
	}
	var s struct {
		LastSync *struct {
			Tokens     int     `json:"tokens"`
			KeptBytes  int     `json:"kept_bytes"`
			PrevBytes  int     `json:"prev_bytes"`
			PrefixKept float64 `json:"prefix_kept"`
			Break      struct {
				Partition string `json:"partition"`
			} `json:"break"`
		} `json:"last_sync"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.LastSync == nil {
		t.Fatalf("show --json has no last_sync (%v):\n%s", err, out)
	}
	l := s.LastSync
	if l.KeptBytes != kept || l.PrevBytes != len(prev) || l.PrefixKept <= 0 || l.PrefixKept >= 1 || l.Break.Partition == "" || l.Tokens == 0 {
		t.Errorf("last_sync %+v; the files share %d of %d bytes", *l, kept, len(prev))
	}
	text, _, _ := b.run(t, ctx, "memory", "show", "--db", db)
	if !strings.Contains(text, "last sync  iteration") || !strings.Contains(text, "a prompt cache reuses") {
		t.Errorf("show does not report the last sync:\n%s", text)
	}
	page := filepath.Join(b.dir, "page.html")
	if _, stderr, code := b.run(t, ctx, "memory", "visualize", "--db", db, "--output", page); code != 0 {
		t.Fatalf("visualize: exit %d, %s", code, stderr)
	}
	if html := b.read(t, page); !strings.Contains(html, `"last_sync":{`) || !strings.Contains(html, "a prompt cache reuses") {
		t.Error("the HTML view does not carry the last sync")
	}
}
