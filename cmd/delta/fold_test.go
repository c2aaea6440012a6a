package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// importSynth imports the committed 400-iteration journal at a budget.
func importSynth(t *testing.T, b *testBundle, budget string) {
	t.Helper()
	j := filepath.Join("..", "..", "testdata", "journals", "synth-400.jsonl")
	if _, errOut, code := b.run(t, context.Background(), "memory", "import", "--db", b.db, "--budget", budget, j); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
}

func TestContextFormats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	importSynth(t, b, "8000")

	md, _, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "8000")
	if code != 0 || !strings.HasPrefix(md, "## Static\n") || !strings.Contains(md, "## Working memory\n") || !strings.Contains(md, "### Current goal\n") {
		t.Fatalf("markdown (code %d):\n%.600s", code, md)
	}
	out, _, _ := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "8000", "--format", "messages")
	var msgs []struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(out), &msgs); err != nil || len(msgs) < 2 {
		t.Fatalf("messages: %v\n%.400s", err, out)
	}
	if msgs[len(msgs)-1].Role != "user" {
		t.Errorf("the last message (goal) is %s, want user", msgs[len(msgs)-1].Role)
	}
	out, _, _ = b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "8000", "--format", "json")
	var cx struct {
		Budget, Tokens int
		Tokenizer      string
		Partitions     []struct {
			Name     string
			Sections []struct{ Source string }
		}
		Messages []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &cx); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, p := range cx.Partitions {
		names = append(names, p.Name)
	}
	if cx.Budget != 8000 || cx.Tokens == 0 || cx.Tokens > 8000 || cx.Tokenizer != "o200k_base" ||
		strings.Join(names, ",") != "static,long_term,short_term,state,working,retrieved,dynamic" || len(cx.Messages) != len(msgs) {
		t.Fatalf("context json: budget %d tokens %d tokenizer %s partitions %v", cx.Budget, cx.Tokens, cx.Tokenizer, names)
	}
	// --output writes the file, creating its directory.
	dst := filepath.Join(b.dir, "artifacts", "memory.md")
	if _, errOut, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "8000", "--output", dst); code != 0 {
		t.Fatal(errOut)
	}
	if got := b.read(t, dst); got != md {
		t.Errorf("--output wrote %d bytes, stdout had %d", len(got), len(md))
	}
	// --output naming a directory says so, and names a file to use.
	_, errOut, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "8000", "--output", filepath.Dir(dst))
	if code == 0 || !strings.Contains(errOut, "is a directory") || !strings.Contains(errOut, filepath.Join(filepath.Dir(dst), "memory.md")) {
		t.Errorf("--output of a directory: exit %d, %s", code, errOut)
	}
}

func TestShowJSONListsBlocks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	importSynth(t, b, "8000")
	out, _, _ := b.run(t, context.Background(), "memory", "show", "--db", b.db, "--json")
	var shown struct {
		Run       map[string]any `json:"run"`
		Blocks    []blockJSON    `json:"blocks"`
		Bookmarks []any          `json:"bookmarks"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Blocks) == 0 || shown.Bookmarks == nil {
		t.Fatalf("show --json: %d blocks, bookmarks %v", len(shown.Blocks), shown.Bookmarks)
	}
	for _, bl := range shown.Blocks {
		if bl.ID == "" || bl.Level < 1 || bl.Iterations[0] > bl.Iterations[1] || bl.Trigger == "" || bl.Summarizer != "extractive" || bl.Tokens == 0 || bl.Parent != nil {
			t.Errorf("visible block %+v", bl)
		}
	}
	all, _, _ := b.run(t, context.Background(), "memory", "show", "--db", b.db, "--json", "--all")
	var every struct {
		Blocks []blockJSON `json:"blocks"`
	}
	json.Unmarshal([]byte(all), &every)
	if len(every.Blocks) <= len(shown.Blocks) {
		t.Errorf("--all lists %d blocks, visible ones %d", len(every.Blocks), len(shown.Blocks))
	}
}

func TestManualFoldUnfoldBookmarkMilestone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	j := b.write(t, "journal.jsonl", journalText)
	b.run(t, ctx, "memory", "import", "--db", b.db, j)
	// A longer run: the bundled one, with a large budget so little is folded.
	importSynth(t, b, "128000")
	run := []string{"--db", b.db, "--run", "synth-400", "--budget", "128000"}
	cmd := func(args ...string) (string, string, int) {
		return b.run(t, ctx, append(append([]string{"memory"}, args...), run...)...)
	}

	// The milestone at iteration 399 made chapter L3-360-399 over L2 blocks
	// of ten iterations. A range that cuts it widens to it, which is folded
	// already; with --exact it is refused, naming the block. Unfolding it
	// shows the L2 blocks, and a range cutting two of them widens to both
	// and folds them into a manual chapter.
	if _, errOut, code := cmd("fold", "--iterations", "380-395", "--exact"); code != 1 || !strings.Contains(errOut, "the range cuts block L3-360-399") ||
		!strings.Contains(errOut, "Try: drop --exact to widen the range to the block's boundaries, fold a range that holds iterations 360-399 whole, or unfold L3-360-399 first") {
		t.Fatalf("fold --exact across a block: %d %s", code, errOut)
	}
	if _, errOut, code := cmd("fold", "--iterations", "380-395"); code != 1 ||
		!strings.Contains(errOut, "iterations 360-399, widened from 380-395 to the blocks that range cuts, are already folded at level 3 (block L3-360-399)") ||
		!strings.Contains(errOut, "Try: fold it at a higher --level") {
		t.Fatalf("fold across a block: %d %s", code, errOut)
	}
	if out, errOut, code := cmd("unfold", "L3-360-399"); code != 0 || !strings.Contains(out, "unfolded L3-360-399") {
		t.Fatalf("unfold: %d %s %s", code, out, errOut)
	}
	out, errOut, code := cmd("fold", "--iterations", "383-395", "--level", "3", "--json")
	if code != 0 || !strings.Contains(errOut, "iterations 383-395 cut folded blocks; widened to 380-399") {
		t.Fatalf("fold: %d %s", code, errOut)
	}
	var blk blockJSON
	if err := json.Unmarshal([]byte(out), &blk); err != nil || blk.Trigger != "manual" || blk.Iterations != [2]int{380, 399} || blk.Level != 3 {
		t.Fatalf("fold --json: %v %+v", err, blk)
	}
	out, errOut, code = cmd("unfold", blk.ID)
	if code != 0 || !strings.Contains(out, "unfolded "+blk.ID) {
		t.Fatalf("unfold: %d %s %s", code, out, errOut)
	}
	out, _, code = cmd("bookmark", "--iteration", "396", "--note", "the retry fix")
	if code != 0 || !strings.Contains(out, "bookmarked iteration 396") {
		t.Fatalf("bookmark: %s", out)
	}
	out, _, _ = cmd("bookmark", "--list", "--json")
	if !strings.Contains(out, `"iteration": 396`) || !strings.Contains(out, "the retry fix") {
		t.Fatalf("bookmark --list: %s", out)
	}
	if out, _, code = cmd("bookmark", "--iteration", "396", "--remove"); code != 0 {
		t.Fatalf("bookmark --remove: %s", out)
	}
	out, errOut, code = cmd("milestone", "release prepared")
	if code != 0 || !strings.Contains(out, "chapter L3-") {
		t.Fatalf("milestone: %d %s %s", code, out, errOut)
	}

	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"fold", "--iterations", "5-2"}, 2, "the range ends before it starts"},
		{[]string{"fold", "--iterations", "abc"}, 2, `--iterations "abc": not a range`},
		{[]string{"fold", "--iterations", "1-9999"}, 1, "run synth-400 has iterations 1-400"},
		{[]string{"fold", "--iterations", "1-2", "--level", "7"}, 2, "--level 7: want 2, 3 or 4"},
		{[]string{"fold"}, 2, "say which --iterations to fold"},
		{[]string{"unfold", "L9-1-1"}, 1, `block not found: "L9-1-1"`},
		{[]string{"unfold", "L9-1-1"}, 1, "Try: delta memory show lists the blocks"},
		{[]string{"unfold"}, 2, "want exactly one BLOCK_ID"},
		{[]string{"bookmark", "--iteration", "401"}, 1, "run synth-400 has iterations 1-400"},
		{[]string{"bookmark", "--iteration", "5", "--remove"}, 1, "has no bookmark"},
		{[]string{"bookmark"}, 2, "say which --iteration"},
		{[]string{"milestone", "again"}, 1, "no iteration since the last milestone"},
		{[]string{"milestone"}, 2, "want one TITLE"},
		{[]string{"context", "--format", "xml"}, 2, `--format "xml": want markdown, messages, json`},
	}
	for _, tc := range cases {
		_, errOut, code := cmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: code %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, errOut, tc.stderr)
		}
	}
	if _, errOut, code := b.run(t, ctx, "memory", "context", "--db", b.db, "--budget", "12"); code != 2 || !strings.Contains(errOut, `--budget "12"`) {
		t.Errorf("--budget 12: code %d, stderr %q", code, errOut)
	}
}

func TestShowSaysWhenABookmarkIsNotInTheWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	importSynth(t, b, "8000")
	// Seven bookmarks on folded iterations: the Dynamic partition shows the
	// text of the five newest; show must say the other two are not in.
	for _, n := range []string{"10", "20", "30", "40", "50", "60", "70"} {
		if _, errOut, code := b.run(t, ctx, "memory", "bookmark", "--db", b.db, "--budget", "8000", "--iteration", n, "--note", "mark "+n); code != 0 {
			t.Fatal(errOut)
		}
	}
	out, _, _ := b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "8000", "--json")
	var shown struct {
		Bookmarks []struct {
			Iteration int  `json:"iteration"`
			InWindow  bool `json:"in_window"`
		} `json:"bookmarks"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || len(shown.Bookmarks) != 7 {
		t.Fatalf("show --json bookmarks: %v %s", err, out)
	}
	var missing []int
	for _, m := range shown.Bookmarks {
		if !m.InWindow {
			missing = append(missing, m.Iteration)
		}
	}
	if len(missing) < 2 || missing[0] != 10 || missing[1] != 20 {
		t.Fatalf("bookmarks not in the window: %v, want at least the two oldest (10, 20)", missing)
	}
	text, _, _ := b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "8000")
	if !strings.Contains(text, "[10] mark 10\n       its text is not in the window") {
		t.Fatalf("show does not say bookmark 10 is out of the window:\n%s", text)
	}
}
