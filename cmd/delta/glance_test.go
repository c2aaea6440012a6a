package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
)

func TestShowIsAnAtAGlanceView(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var lines []byte
	for _, it := range plantedIterations(t, 120) {
		lines = append(lines, it...)
	}
	path := b.write(t, "journal.jsonl", string(lines))
	if _, stderr, code := b.run(t, ctx, "memory", "import", "--db", b.db, "--budget", "4000", path); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	if _, stderr, code := b.run(t, ctx, "memory", "bookmark", "--db", b.db, "--iteration", "7", "--note", "the config layout"); code != 0 {
		t.Fatalf("bookmark: %s", stderr)
	}
	out, stderr, code := b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "4000")
	if code != 0 {
		t.Fatalf("show: %s", stderr)
	}
	for _, want := range []string{"120 iterations", "raw history", "→ window", "folds ", "recalls ",
		"partitions", "long-term", "working", "retrieved", "dynamic", "/ 4,000",
		"blocks shown", "bookmarks", "[7] the config layout", "last folds", "newest iterations"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\033[") {
		t.Errorf("show coloured output that is not a terminal")
	}
}

func TestColourFollowsTheTerminalAndNoColor(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	e := env{getenv: func(k string) string { return vars[k] }, stdoutTTY: true}
	if !e.color() {
		t.Fatal("a terminal without NO_COLOR should get colour")
	}
	vars["NO_COLOR"] = "1"
	if e.color() {
		t.Fatal("NO_COLOR must turn colour off")
	}
	delete(vars, "NO_COLOR")
	e.stdoutTTY = false
	if e.color() {
		t.Fatal("no colour when stdout is not a terminal")
	}
	on, off := palette{on: true}, palette{}
	if got := off.bar(50, 100, 10); got != "█████░░░░░" {
		t.Errorf("bar at 50%%: %q", got)
	}
	if got := on.bar(95, 100, 10); !strings.HasPrefix(got, "\033[31m") {
		t.Errorf("a bar over 90%% should be red: %q", got)
	}
	if got := off.bar(10, 0, 4); got != "    " {
		t.Errorf("a partition without budget: %q", got)
	}
	if got := countsLine(map[string]int{"interval": 2, "pressure": 3, "zzz": 1}, "pressure", "interval", "milestone"); got != "6 (pressure 3 · interval 2 · zzz 1)" {
		t.Errorf("countsLine: %q", got)
	}
}

// TestShowSaysHowTheBudgetWasUsed: with a system prompt over its share,
// show says how Static took its room (and where it was cut), and --json
// gives the budget used, what Static needs and the folds made with room.
func TestShowSaysHowTheBudgetWasUsed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	long := strings.Repeat("Use the open command to view a file at a line; edit replaces a range of lines and checks the indentation. ", 60)
	path := b.write(t, "agent.json", `[{"role":"system","content":"`+long+`"},{"role":"user","content":"Fix the date parser."},
		{"role":"assistant","content":"Look at the parser.","tool_calls":[{"id":"c1","type":"function","function":{"name":"open","arguments":"{\"path\":\"src/Parser.java\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"class Parser {}"}]`)
	if _, stderr, code := b.run(t, ctx, "memory", "import", "--db", b.db, "--budget", "4000", path); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	for budget, want := range map[string]string{
		"4000": "more than its 10% share: it takes",
		"2000": "more than its cap of 40% of the budget: it is cut to 800",
	} {
		out, stderr, code := b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", budget)
		if code != 0 || !strings.Contains(out, "static needs 1,") || !strings.Contains(out, want) {
			t.Errorf("show at %s: code %d, lacks %q:\n%s\n%s", budget, code, want, out, stderr)
		}
	}
	var s struct {
		Totals struct {
			BudgetUsed    float64        `json:"budget_used"`
			StaticNeed    int            `json:"static_need"`
			FoldsWithRoom map[string]int `json:"folds_with_room"`
		} `json:"totals"`
	}
	out, _, code := b.run(t, ctx, "memory", "show", "--db", b.db, "--budget", "4000", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("show --json: code %d\n%s", code, out)
	}
	if s.Totals.BudgetUsed <= 0.2 || s.Totals.BudgetUsed > 1 || s.Totals.StaticNeed < 1000 || s.Totals.FoldsWithRoom == nil || len(s.Totals.FoldsWithRoom) != 0 {
		t.Errorf("totals %+v", s.Totals)
	}
}

func TestSavedTextNeverSaysANegativeSaving(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		window, raw int
		want        string
	}{
		{183, 73, ", larger: a short run"},
		{500, 1000, ", 50.0% smaller"},
		{100, 0, ""},
	} {
		got := savedText(c.window, c.raw)
		if !strings.HasPrefix(got, c.want) || (c.want == "" && got != "") {
			t.Errorf("savedText(%d, %d) = %q, want it to start %q", c.window, c.raw, got, c.want)
		}
		if strings.Contains(got, "-") {
			t.Errorf("savedText(%d, %d) = %q: a negative figure", c.window, c.raw, got)
		}
	}
}

func TestShowCutsALongBookmarkNoteToALine(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	printBookmarks(&b, []bookmarkJSON{{Bookmark: fold.Bookmark{Iteration: 3, Note: strings.Repeat("why it matters ", 400) + "\nsecond line"}, InWindow: true}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || len([]rune(lines[1])) > 110 || !strings.HasSuffix(lines[1], "…") {
		t.Errorf("show's bookmark lines:\n%s", b.String())
	}
}
