package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/simulate"
)

// TestSimulateAgreesWithShow replays a journal into a database with --db,
// then checks that show, reading that database, counts what simulate
// reported: iterations, folds by trigger, recalls by reason, raw tokens.
func TestSimulateAgreesWithShow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var lines []byte
	for _, it := range plantedIterations(t, 150) {
		lines = append(lines, it...)
	}
	path := filepath.Join(b.dir, "journal.jsonl")
	if err := os.WriteFile(path, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := b.run(t, ctx, "memory", "simulate", "--db", b.db, "--budget", "4000", "--json", path)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	var rep simulate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Iterations != 150 || len(rep.Series) != 150 || rep.Folds.Total == 0 {
		t.Fatalf("simulate report: %d iterations, %d in the series, %d folds", rep.Iterations, len(rep.Series), rep.Folds.Total)
	}
	stdout, stderr, code = b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "4000", "--json")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	var shown struct {
		Run    struct{ Iterations int } `json:"run"`
		Totals totalsJSON               `json:"totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Run.Iterations != rep.Iterations {
		t.Errorf("iterations: show %d, simulate %d", shown.Run.Iterations, rep.Iterations)
	}
	if shown.Totals.RawTokens != rep.RawTokens {
		t.Errorf("raw tokens: show %d, simulate %d", shown.Totals.RawTokens, rep.RawTokens)
	}
	if shown.Totals.Folds.Total != rep.Folds.Total || !sameCounts(shown.Totals.Folds.By, rep.Folds.By) {
		t.Errorf("folds: show %+v, simulate %+v", shown.Totals.Folds, rep.Folds)
	}
	if shown.Totals.Recalls.Total != rep.Recalls.Total || !sameCounts(shown.Totals.Recalls.By, rep.Recalls.By) {
		t.Errorf("recalls: show %+v, simulate %+v", shown.Totals.Recalls, rep.Recalls)
	}

	// The text form: a line per iteration, then the totals.
	stdout, _, code = b.run(t, ctx, "memory", "simulate", "--budget", "4000", path)
	if code != 0 || strings.Count(stdout, "\n") < 150 || !strings.Contains(stdout, "iterations 150") || !strings.Contains(stdout, "fold L") {
		t.Fatalf("simulate text: exit %d\n%s", code, tail(stdout, 600))
	}
	if _, stderr, code = b.run(t, ctx, "memory", "simulate", filepath.Join(b.dir, "missing.jsonl")); code != exitFailure || !strings.Contains(stderr, "missing.jsonl") {
		t.Fatalf("missing file: exit %d, %s", code, stderr)
	}
	if _, _, code = b.run(t, ctx, "memory", "simulate"); code != exitUsage {
		t.Fatalf("no FILE: exit %d, want %d", code, exitUsage)
	}
}

func sameCounts(a, b map[string]int) bool {
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	for k, n := range b {
		if a[k] != n {
			return false
		}
	}
	return true
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// TestSimulateUsesTheSettingsInForce checks that a replay, though its
// database is a temporary one, uses the settings file beside the default
// database, as sync and `delta memory config` do, and that --config still
// names another.
func TestSimulateUsesTheSettingsInForce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	path := b.write(t, "journal.jsonl", journalText)
	b.env["DELTA_CWD"] = b.dir
	budget := func(args ...string) int {
		t.Helper()
		stdout, stderr, code := b.run(t, ctx, append(append([]string{"memory"}, args...), "simulate", "--json", path)...)
		if code != 0 {
			t.Fatalf("simulate: exit %d: %s", code, stderr)
		}
		var rep simulate.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Budget
	}
	if got := budget(); got != 32000 {
		t.Fatalf("no settings file: budget %d, want the default 32000", got)
	}
	b.write(t, ".delta/memory.yaml", "budget: 6000\n")
	if got := budget(); got != 6000 {
		t.Errorf("with .delta/memory.yaml: budget %d, want its 6000", got)
	}
	other := b.write(t, "other.yaml", "budget: 7000\n")
	if got := budget("--config", other); got != 7000 {
		t.Errorf("with --config: budget %d, want its 7000", got)
	}
	b.write(t, ".delta/memory.yaml", "budget: [\n")
	if _, stderr, code := b.run(t, ctx, "memory", "simulate", path); code == 0 || !strings.Contains(stderr, "memory.yaml") {
		t.Errorf("a broken settings file: exit %d, stderr %q; want an error naming it", code, stderr)
	}
}
