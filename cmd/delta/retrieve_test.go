package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestRetrieveCommand(t *testing.T) {
	t.Parallel()
	b := setup(t)
	importSynth(t, b, "8000")
	ctx := context.Background()

	out, errOut, code := b.run(t, ctx, "memory", "retrieve", "--db", b.db, "--budget", "8000", "--json", "--keyword", "pytest", "--keyword", "failed", "--limit", "3")
	if code != 0 {
		t.Fatalf("retrieve: exit %d: %s", code, errOut)
	}
	var res struct {
		Query string `json:"query"`
		Hits  []struct {
			Kind       string  `json:"kind"`
			Iterations [2]int  `json:"iterations"`
			Score      float64 `json:"score"`
			Block      *string `json:"block"`
			Reason     string  `json:"reason"`
			Content    string  `json:"content"`
			Visible    *bool   `json:"visible"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("retrieve --json: %v\n%s", err, out)
	}
	for _, h := range res.Hits {
		if h.Visible == nil {
			t.Fatalf("hit %v has no visible field:\n%s", h.Iterations, out)
		}
	}
	if res.Query != "pytest failed" || len(res.Hits) == 0 || len(res.Hits) > 3 {
		t.Fatalf("query %q, %d hits", res.Query, len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Reason != "explicit" || h.Content == "" || h.Score <= 0 || (h.Kind == "block") != (h.Block != nil) {
			t.Fatalf("bad hit %+v", h)
		}
	}

	// The next show lists them as active recalls.
	out, _, code = b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "8000", "--json")
	if code != 0 {
		t.Fatal("show failed")
	}
	var show struct {
		Retrieved []struct {
			Iterations [2]int `json:"iterations"`
			Reason     string `json:"reason"`
			Query      string `json:"query"`
			Since      int    `json:"since"`
			Expires    int    `json:"expires"`
			Shown      string `json:"shown"`
		} `json:"retrieved"`
	}
	if err := json.Unmarshal([]byte(out), &show); err != nil {
		t.Fatal(err)
	}
	explicit := 0
	for _, r := range show.Retrieved {
		if r.Reason == "explicit" && r.Query == "pytest failed" && r.Since == 400 && r.Expires == 408 && r.Shown != "" {
			explicit++
		}
	}
	if explicit != len(res.Hits) {
		t.Fatalf("show --json lists %d explicit recalls, retrieve made %d: %+v", explicit, len(res.Hits), show.Retrieved)
	}

	if _, errOut, code := b.run(t, ctx, "memory", "retrieve", "--db", b.db); code != 2 || !strings.Contains(errOut, "--keyword") {
		t.Fatalf("retrieve without a keyword: exit %d, %q", code, errOut)
	}

	// The text form numbers the hits and prints their fused scores to
	// three digits (with a limit they are reciprocal ranks: at two
	// decimals all of them read 0.01). A limit past recall.max_hits is taken as the
	// maximum, and said so.
	out, errOut, code = b.run(t, ctx, "memory", "retrieve", "--db", b.db, "--budget", "8000", "--dry-run", "--keyword", "pytest", "--limit", "2")
	if code != 0 || !strings.Contains(out, "── #1 · ") || !strings.Contains(out, "── #2 · ") || strings.Contains(out, "#3") || errOut != "" {
		t.Fatalf("retrieve --limit 2: exit %d, stderr %q\n%s", code, errOut, out)
	}
	if strings.Contains(out, "score 0.01 ") {
		t.Errorf("scores printed at two decimals:\n%s", out)
	}
	out, errOut, code = b.run(t, ctx, "memory", "retrieve", "--db", b.db, "--budget", "8000", "--dry-run", "--json", "--keyword", "pytest", "--limit", "5000")
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("retrieve --limit 5000: exit %d, %v", code, err)
	}
	if len(res.Hits) > 100 || !strings.Contains(errOut, "--limit 5000") || !strings.Contains(errOut, "max_hits (100)") {
		t.Fatalf("retrieve --limit 5000: %d hits, stderr %q", len(res.Hits), errOut)
	}
}

func TestReindexAndToolsCommands(t *testing.T) {
	t.Parallel()
	b := setup(t)
	importSynth(t, b, "8000")
	ctx := context.Background()
	if err := os.RemoveAll(strings.TrimSuffix(b.db, ".db") + ".bleve"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := b.run(t, ctx, "memory", "reindex", "--db", b.db, "--json")
	if code != 0 || !strings.Contains(out, `"iterations": 400`) {
		t.Fatalf("reindex: exit %d, %s %s", code, out, errOut)
	}
	out, _, code = b.run(t, ctx, "memory", "tools")
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) != 2 ||
		tools[0].Function.Name != "recall_memory" || tools[1].Function.Name != "bookmark_memory" || tools[0].Type != "function" {
		t.Fatalf("tools: exit %d\n%s", code, out)
	}
}

// TestRetrieveSaysTheCurrentIterationIsLeftOut: a recall that fills the
// window never makes the newest iteration (the step that asks) a hit, and
// when only that iteration holds the words it says so, rather than that
// nothing in the run matches; a recall with a limit, which does rank it,
// says nothing of the kind.
func TestRetrieveSaysTheCurrentIterationIsLeftOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	path := b.write(t, "chat.json", `[{"role":"user","content":"What is the weather in Paris?"},
{"role":"assistant","content":"It is sunny in Paris."},
{"role":"user","content":"And in Rome?"},
{"role":"assistant","content":"Rome is cloudy."}]`)
	if _, errOut, code := b.run(t, ctx, "memory", "import", "--db", b.db, path); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out, errOut, code := b.run(t, ctx, "memory", "retrieve", "--db", b.db, "--dry-run", "--keyword", "cloudy")
	if code != 0 || !strings.Contains(out, "nothing before the current iteration (2") {
		t.Errorf("a fill whose only match is the current step: exit %d, %s%s", code, out, errOut)
	}
	out, errOut, code = b.run(t, ctx, "memory", "retrieve", "--db", b.db, "--dry-run", "--limit", "3", "--keyword", "zzzq")
	if code != 0 || !strings.Contains(out, "nothing in the run matches") {
		t.Errorf("a recall with a limit and no match: exit %d, %s%s", code, out, errOut)
	}
}
