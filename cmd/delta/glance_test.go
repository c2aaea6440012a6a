package main

import (
	"context"
	"strings"
	"testing"
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
