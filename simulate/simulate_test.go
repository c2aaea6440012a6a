package simulate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func generated(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := synth.WriteJSONL(f, synth.Config{Seed: 5, Iterations: n, RunID: "sim", MaxOutputBytes: 2000}); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaySetup loads a generated run of n iterations and opens an engine
// at budget in a temporary directory, closed when the test ends.
func replaySetup(t *testing.T, n, budget int) (*Source, *memory.Engine, string) {
	t.Helper()
	src, err := Load(generated(t, n), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return src, eng, dir
}

func TestLoadSplitsADeltaJournalAtThoughts(t *testing.T) {
	t.Parallel()
	src, err := Load(generated(t, 40), "")
	if err != nil {
		t.Fatal(err)
	}
	if src.Run != "sim" || src.Format != journal.FormatDelta || len(src.Chunks) != 40 {
		t.Fatalf("run %q format %q chunks %d, want sim, delta, 40", src.Run, src.Format, len(src.Chunks))
	}
	if !strings.Contains(string(src.Chunks[0]), `"RUN_START"`) {
		t.Fatalf("the first chunk should hold RUN_START")
	}
	for i, c := range src.Chunks {
		first, _, _ := strings.Cut(string(c), "\n")
		if i > 0 && !strings.Contains(first, `"type":"THOUGHT"`) {
			t.Fatalf("chunk %d starts with %.80s, want a THOUGHT", i+1, first)
		}
	}
}

func TestLoadNamesTheBadLine(t *testing.T) {
	t.Parallel()
	good := `{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_START","payload":{"run_id":"r","task":"t"}}` + "\n"
	p := writeFile(t, "journal.jsonl", good+"{oops\n")
	_, err := Load(p, journal.FormatDelta)
	var ie *journal.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "journal.jsonl:2") {
		t.Fatalf("got %v, want an InputError at line 2", err)
	}
	if _, err := Load(writeFile(t, "empty.jsonl", ""), journal.FormatDelta); !errors.Is(err, journal.ErrInvalidInput) {
		t.Fatalf("empty journal: got %v", err)
	}
	if _, err := Load(p, "yaml"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Fatalf("unknown format: got %v", err)
	}
}

func TestLoadConvertsOpenAIMessages(t *testing.T) {
	t.Parallel()
	chat := `[{"role":"system","content":"You book flights."},
{"role":"user","content":"Change my flight."},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_reservation","arguments":"{\"id\":\"X1\"}"}}]},
{"role":"tool","tool_call_id":"c1","name":"get_reservation","content":"{\"flight\":\"HAT001\"}"},
{"role":"assistant","content":"Which date?"}]`
	src, err := Load(writeFile(t, "chat-7.json", chat), "auto")
	if err != nil {
		t.Fatal(err)
	}
	if src.Run != "chat-7" || src.Format != journal.FormatOpenAI || len(src.Chunks) != 2 {
		t.Fatalf("run %q format %q chunks %d, want chat-7, openai, 2", src.Run, src.Format, len(src.Chunks))
	}
	if !strings.Contains(string(src.Chunks[0]), "get_reservation") || !strings.Contains(string(src.Chunks[1]), "Which date?") {
		t.Fatalf("chunks:\n%s\n%s", src.Chunks[0], src.Chunks[1])
	}
}

func TestRunReplaysEveryIteration(t *testing.T) {
	t.Parallel()
	src, eng, dir := replaySetup(t, 60, 3000)
	calls := 0
	rep, err := Run(context.Background(), eng, src, Options{Workspace: dir, KeepRecent: 3, OnIteration: func(Iteration, memory.SyncResult) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 60 || len(rep.Series) != 60 || rep.Iterations != 60 {
		t.Fatalf("calls %d, series %d, iterations %d, want 60", calls, len(rep.Series), rep.Iterations)
	}
	prev := 0
	folds := 0
	for _, it := range rep.Series {
		if it.RawTokens <= prev || it.WindowTokens > 3000 || it.WindowTokens <= 0 {
			t.Fatalf("iteration %d: raw %d (previous %d), window %d of 3000", it.Iteration, it.RawTokens, prev, it.WindowTokens)
		}
		prev = it.RawTokens
		folds += len(it.Folds)
	}
	if folds == 0 || folds != rep.Folds.Total {
		t.Fatalf("folds: series %d, total %d; 60 iterations at 3,000 tokens must fold", folds, rep.Folds.Total)
	}
	if rep.FinalSavings <= 0.5 || rep.RunSavings <= 0 || rep.PrefixKept <= 0 || rep.PrefixKept > 1 {
		t.Fatalf("savings %.2f / %.2f, prefix %.2f", rep.FinalSavings, rep.RunSavings, rep.PrefixKept)
	}
	var text strings.Builder
	rep.WriteText(&text)
	for _, want := range []string{"iterations 60", "memory file ≤ 3,000", "folds: ", "sync p50"} {
		if !strings.Contains(text.String(), want) {
			t.Fatalf("summary lacks %q:\n%s", want, text.String())
		}
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	if got := prefixShare(window.SharedPrefix("abcdef", "abcxyz"), 6); got != 0.5 {
		t.Errorf("prefixShare = %v, want 0.5", got)
	}
	if got := prefixShare(window.SharedPrefix("abc", "abcdef"), 3); got != 1 {
		t.Errorf("prefixShare of a grown output = %v, want 1", got)
	}
	if got := prefixShare(0, 0); got != 1 {
		t.Errorf("prefixShare of a first output = %v, want 1", got)
	}
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if q := quantile(vals, 0.5); q != 5 {
		t.Errorf("p50 = %v, want 5", q)
	}
	if q := quantile(vals, 0.99); q != 10 {
		t.Errorf("p99 = %v, want 10", q)
	}
	var c Counts
	for _, k := range []string{"interval", "pressure", "zeta", "interval"} {
		c.add(k)
	}
	if got := c.String("pressure", "interval", "milestone"); got != "4 (pressure 1, interval 2, milestone 0, zeta 1)" {
		t.Errorf("Counts.String = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 173075: "173,075", -1234567: "-1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
