package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigMergesOverDefaults: memory.yaml beside the database sets one
// share and one threshold; the rest keep their defaults, working gives up
// what the raised share needs, and the window keeps its long-term memory.
func TestConfigMergesOverDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.write(t, "memory.yaml", "shares: {static: 0.2}\npressure:\n  high: 0.85\n")
	out, errOut, code := b.run(t, ctx, "memory", "config", "--db", b.db, "--json")
	if code != 0 {
		t.Fatalf("config: code %d\n%s", code, errOut)
	}
	var got struct {
		File     string   `json:"file"`
		Set      []string `json:"set"`
		Settings struct {
			Shares   map[string]float64 `json:"shares"`
			Pressure map[string]float64 `json:"pressure"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("config --json: %v\n%s", err, out)
	}
	wantShares := map[string]float64{"static": 0.2, "long_term": 0.2, "short_term": 0.2, "working": 0.2, "retrieved": 0.1, "dynamic": 0.1}
	for k, v := range wantShares {
		if got.Settings.Shares[k] != v {
			t.Errorf("shares.%s = %v, want %v", k, got.Settings.Shares[k], v)
		}
	}
	if p := got.Settings.Pressure; p["high"] != 0.85 || p["low"] != 0.6 || p["urgent"] != 1.25 {
		t.Errorf("pressure %v, want high 0.85, low 0.6, urgent 1.25", p)
	}
	if got.File != filepath.Join(b.dir, "memory.yaml") || strings.Join(got.Set, ",") != "pressure.high,shares.static" {
		t.Errorf("file %q set %v", got.File, got.Set)
	}
	out, _, _ = b.run(t, ctx, "memory", "config", "--db", b.db)
	for _, want := range []string{"static: 0.2 # memory.yaml", "working: 0.2 # lowered", "long_term: 0.2\n", "high: 0.85 # memory.yaml", "low: 0.6\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}

	// The merged shares reach the window: long-term memory keeps its budget.
	j := b.write(t, "journal.jsonl", journalText)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatalf("import: code %d\n%s", code, errOut)
	}
	out, errOut, code = b.run(t, ctx, "memory", "context", "--db", b.db, "--format", "json")
	if code != 0 {
		t.Fatalf("context: code %d\n%s", code, errOut)
	}
	var win struct {
		Partitions []struct {
			Name   string `json:"name"`
			Budget int    `json:"budget"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(out), &win); err != nil {
		t.Fatalf("context --format json: %v\n%s", err, out)
	}
	budgets := map[string]int{}
	for _, p := range win.Partitions {
		budgets[p.Name] = p.Budget
	}
	if budgets["long_term"] != 6400 || budgets["static"] != 6400 {
		t.Errorf("partition budgets %v, want static and long_term 6400 of 32000", budgets)
	}
}

// TestConfigErrorsNameTheFile: a key the file does not know, at any depth,
// or a value that does not work after the merge, fails naming the file and
// the key, leaves no database behind, and is not reported as a failure to
// open the database.
func TestConfigErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ text, want string }{
		{"shares: {statc: 0.2}\n", "unknown key shares.statc"},
		{"recall:\n  ttl: 4\n  tll: 5\n", "unknown key recall.tll"},
		{"pressure: {low: 1.1}\n", "low (1.10) < high (1.00)"},
	} {
		b := setup(t)
		file := b.write(t, "memory.yaml", tc.text)
		for _, args := range [][]string{{"show"}, {"import", b.write(t, "j.jsonl", journalText)}} {
			_, errOut, code := b.run(t, ctx, append(append([]string{"memory"}, args...), "--db", b.db)...)
			if code != exitFailure || !strings.Contains(errOut, "Error: config "+file+": ") || !strings.Contains(errOut, tc.want) ||
				strings.Contains(errOut, "memory.db") || !strings.Contains(errOut, "Try: fix "+file) {
				t.Errorf("%s with %q: code %d\n%s", args[0], tc.text, code, errOut)
			}
			if _, err := os.Stat(b.db); err == nil {
				t.Errorf("%s with %q left a database behind", args[0], tc.text)
			}
		}
	}
}
