package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/llmtest"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/scoring"
)

// synthJournal writes a generated run of n iterations with small outputs.
func (b *testBundle) synthJournal(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(b.dir, "synth.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := synth.WriteJSONL(f, synth.Config{Seed: 3, Iterations: n, RunID: "synth", MaxOutputBytes: 400}); err != nil {
		t.Fatal(err)
	}
	return p
}

// quietJournal writes a run of n small iterations that nothing folds.
func (b *testBundle) quietJournal(t *testing.T, n int) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(`{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_START","payload":{"run_id":"quiet","task":"read the modules"}}` + "\n")
	seq := 1
	for i := 1; i <= n; i++ {
		seq++
		fmt.Fprintf(&sb, `{"seq":%d,"timestamp":"2025-10-02T10:00:%02d.000Z","type":"THOUGHT","payload":{"content":"Read module %d."}}`+"\n", seq, i%60, i)
	}
	return b.write(t, "quiet.jsonl", sb.String())
}

// shownJSON is what the LLM tests read of `show --json --all`.
type shownJSON struct {
	LLM    llmShown `json:"llm"`
	Blocks []struct {
		ID         string         `json:"id"`
		Level      int            `json:"level"`
		Summarizer string         `json:"summarizer"`
		LLMTokens  map[string]int `json:"llm_tokens"`
		LLMCalls   int            `json:"llm_calls"`
		SelfCheck  string         `json:"self_check"`
	} `json:"blocks"`
}

// llmShown is show --json's "llm": the run's totals, and what awaits the
// model.
type llmShown struct {
	Totals   map[string]int
	Awaiting []string `json:"awaiting"`
	Breaker  *struct {
		Failures  int        `json:"failures"`
		OpenUntil *time.Time `json:"open_until"`
	} `json:"breaker"`
}

func (l *llmShown) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	l.Totals = map[string]int{}
	for k, v := range all {
		var n int
		if json.Unmarshal(v, &n) == nil {
			l.Totals[k] = n
		}
	}
	type plain llmShown
	return json.Unmarshal(data, (*plain)(l))
}

func (b *testBundle) show(t *testing.T) shownJSON {
	t.Helper()
	out, errOut, code := b.run(t, context.Background(), "memory", "show", "--db", b.db, "--json", "--all")
	var s shownJSON
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("show --json: %d %s\n%s", code, errOut, out)
	}
	return s
}

func newModel(t *testing.T) *llmtest.Server {
	t.Helper()
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.New(t, llmtest.Model(tok))
}

func TestImportWithLLMSummarizer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	srv := newModel(t)
	b.env["OPENAI_BASE_URL"] = srv.BaseURL()
	b.env["OPENAI_API_KEY"] = "sk-e2e"
	j := b.synthJournal(t, 120)
	// At 8,000 tokens the run outgrows its window and folds.
	out, errOut, code := b.run(t, ctx, "memory", "--budget", "8000", "import", "--db", b.db, "--summarizer", "llm", "--model", "tiny-model", "--verify", j)
	if code != 0 || errOut != "" || !strings.Contains(out, "folded:") {
		t.Fatalf("import: %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	s := b.show(t)
	calls, prompt, llmBlocks := 0, 0, 0
	for _, blk := range s.Blocks {
		if blk.Level >= 2 {
			if blk.Summarizer != "llm:tiny-model" || blk.LLMCalls != 2 || blk.LLMTokens["prompt"] == 0 || blk.SelfCheck != "complete" {
				t.Errorf("block %s: %+v", blk.ID, blk)
			}
			llmBlocks++
		}
		calls += blk.LLMCalls
		prompt += blk.LLMTokens["prompt"]
	}
	if llmBlocks == 0 {
		t.Fatal("no L2-L4 blocks")
	}
	want := map[string]int{"calls": srv.Calls(), "prompt_tokens": prompt, "failures": 0}
	for k, v := range want {
		if s.LLM.Totals[k] != v {
			t.Errorf("llm.%s = %d, want %d (%v)", k, s.LLM.Totals[k], v, s.LLM.Totals)
		}
	}
	if calls != srv.Calls() || s.LLM.Totals["completion_tokens"] == 0 || len(s.LLM.Totals) != 4 || len(s.LLM.Awaiting) != 0 {
		t.Errorf("block calls %d, server %d, totals %v", calls, srv.Calls(), s.LLM)
	}
	for _, r := range srv.Requests() {
		if r.Body.Model != "tiny-model" || r.Header.Get("Authorization") != "Bearer sk-e2e" {
			t.Fatalf("request model %q auth %q", r.Body.Model, r.Header.Get("Authorization"))
		}
	}
	out, _, _ = b.run(t, ctx, "memory", "show", "--db", b.db)
	if !strings.Contains(out, "  llm ") || !strings.Contains(out, " calls, ") || !strings.Contains(out, " prompt + ") {
		t.Errorf("show prints no LLM totals:\n%s", out)
	}
}

// TestImportLLMFailures: the import succeeds with extractive blocks, and
// one warning says why; a refused key is named, and called once.
func TestImportLLMFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, warning string
		summarizer    func(string) bool
		status        int
		calls         func(int) bool
	}{
		{"refused key", "refused the API key (invalid API key (HTTP 401): bad key)",
			func(s string) bool { return s == "extractive (llm failed: invalid API key (HTTP 401): bad key)" },
			401, func(n int) bool { return n <= 4 }}, // at most one per concurrent summary
		// Each 500 is retried three times; after three summaries failed in
		// a row (four at most, one per concurrent summary) the circuit
		// breaker holds back the calls for the others.
		{"server error", "the circuit breaker then held back the calls for",
			func(s string) bool {
				return s == "extractive (llm failed: HTTP 500: bad key)" ||
					strings.HasPrefix(s, "extractive (llm failed: no call to ") && strings.Contains(s, "circuit open after")
			},
			500, func(n int) bool { return n >= 3*4 && n <= 4*4 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(tc.status, "bad key") })
			b.env["OPENAI_BASE_URL"] = srv.BaseURL()
			_, errOut, code := b.run(t, context.Background(), "memory", "--budget", "8000", "import", "--db", b.db, b.synthJournal(t, 120))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			t.Logf("stderr:\n%s", errOut)
			if strings.Count(errOut, "Warning:") != 1 || !strings.Contains(errOut, tc.warning) || !strings.Contains(errOut, "nothing was lost") {
				t.Errorf("stderr:\n%s", errOut)
			}
			if tc.status == 401 && !strings.Contains(errOut, "Try: check OPENAI_API_KEY") {
				t.Errorf("no hint for the key:\n%s", errOut)
			}
			if !tc.calls(srv.Calls()) {
				t.Errorf("%d calls", srv.Calls())
			}
			s := b.show(t)
			fell := 0
			for _, blk := range s.Blocks {
				if blk.Level >= 2 {
					fell++
					if !tc.summarizer(blk.Summarizer) {
						t.Errorf("block %s: %q", blk.ID, blk.Summarizer)
					}
				}
			}
			if fell == 0 || s.LLM.Totals["failures"] != fell || s.LLM.Totals["calls"] != srv.Calls() {
				t.Errorf("%d fallbacks, totals %v, server %d calls", fell, s.LLM.Totals, srv.Calls())
			}
		})
	}
}

// TestSummarizerFlagsBeatEnvAndFile: flag over env over memory.yaml over
// the default, seen in the summarizer each manual fold records.
func TestSummarizerFlagsBeatEnvAndFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	srv := newModel(t)
	dead := llmtest.New(t, func(int, llmtest.Request) llmtest.Response { return llmtest.Error(500, "wrong server") })
	j := b.quietJournal(t, 20)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, j); code != 0 {
		t.Fatal(errOut)
	}
	fold := func(first string, args ...string) string {
		t.Helper()
		full := append([]string{"memory", "fold", "--db", b.db, "--iterations", first, "--level", "2", "--json"}, args...)
		out, errOut, code := b.run(t, ctx, full...)
		var blk struct {
			Summarizer string `json:"summarizer"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &blk) != nil {
			t.Fatalf("fold %s: %d %s %s", first, code, out, errOut)
		}
		return blk.Summarizer
	}
	if got := fold("1-2"); got != "extractive" {
		t.Errorf("default: %s", got)
	}
	b.write(t, "memory.yaml", "llm:\n  model: file-model\n  base_url: "+srv.BaseURL()+"\n")
	if got := fold("3-4"); got != "llm:file-model" {
		t.Errorf("file: %s", got)
	}
	b.env["DELTA_MEMORY_MODEL"] = "env-model"
	if got := fold("5-6"); got != "llm:env-model" {
		t.Errorf("env over file: %s", got)
	}
	if got := fold("7-8", "--model", "flag-model"); got != "llm:flag-model" {
		t.Errorf("flag over env: %s", got)
	}
	b.env["DELTA_MEMORY_SUMMARIZER"] = "extractive"
	if got := fold("9-10"); got != "extractive" {
		t.Errorf("env summarizer: %s", got)
	}
	if got := fold("11-12", "--summarizer", "auto"); got != "llm:env-model" {
		t.Errorf("flag summarizer over env: %s", got)
	}
	// OPENAI_BASE_URL beats the file's base_url.
	b.env["OPENAI_BASE_URL"] = dead.BaseURL()
	if got := fold("13-14", "--summarizer", "llm"); got != "extractive (llm failed: HTTP 500: wrong server)" {
		t.Errorf("env URL over file: %s", got)
	}
	// Usage mistakes.
	if _, errOut, code := b.run(t, ctx, "memory", "show", "--db", b.db, "--summarizer", "gpt"); code != 2 || !strings.Contains(errOut, `--summarizer "gpt": want auto, extractive, llm`) {
		t.Errorf("bad summarizer: %d %s", code, errOut)
	}
	if _, errOut, code := b.run(t, ctx, "memory", "show", "--db", b.db, "--llm-timeout", "soon"); code != 2 || !strings.Contains(errOut, "--llm-timeout") {
		t.Errorf("bad timeout: %d %s", code, errOut)
	}
	b2 := setup(t)
	if _, errOut, code := b2.run(t, ctx, "memory", "import", "--db", b2.db, "--summarizer", "llm", j); code != 1 ||
		!strings.Contains(errOut, "needs OPENAI_API_KEY") || !strings.Contains(errOut, "Try: set OPENAI_API_KEY") {
		t.Errorf("llm without key or URL: %d %s", code, errOut)
	}
}
