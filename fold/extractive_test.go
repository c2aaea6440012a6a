package fold_test

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

const ingestFailure = "tests/test_ingest.py F\n" +
	"Traceback (most recent call last):\n" +
	"  File \"tests/test_ingest.py\", line 12, in test_rows\n" +
	"    assert len(rows) == 5\n" +
	"AssertionError: assert 4 == 5\n" +
	"1 failed in 0.05s"

// parserThoughts are the thoughts of parserFix, in order.
var parserThoughts = []string{
	"The ingest test fails on files without a trailing newline. I will read the parser to see how rows are split.",
	"Run the failing test to see the exact error.",
	"The parser drops the last row because split ignores the final line. Fix the split in core.py and add a rows module.",
	"Remove the stale fixture and move the helper next to the parser.",
	"Rerun the ingest test to confirm the fix.",
}

// parserFix is five iterations: a read, a failing test, two writes, a
// shell delete and move, and a passing test.
func parserFix(l *deltaLog) {
	l.think(parserThoughts[0], okCall("read_file", map[string]any{"path": "src/parser/core.py"}, numberedLines(40)))
	l.think(parserThoughts[1], failCall("run_shell", map[string]any{"command": "pytest -q tests/test_ingest.py"}, ingestFailure))
	l.think(parserThoughts[2],
		okCall("write_file", map[string]any{"path": "src/parser/core.py", "content": "def split(text):\n    return text.splitlines()\n"}, "ok"),
		okCall("create_file", map[string]any{"path": "src/parser/rows.py", "content": "ROWS = []\n"}, "ok"))
	l.think(parserThoughts[3], okCall("run_shell", map[string]any{"command": "rm tests/fixtures/old.csv && mv src/helpers.py src/parser/helpers.py"}, ""))
	l.think(parserThoughts[4], okCall("run_shell", map[string]any{"command": "pytest -q tests/test_ingest.py"}, "1 passed in 0.04s"))
}

func TestExtractiveL2(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 32000, nil)
	l := newDeltaLog("l2", "Fix the ingest parser.")
	parserFix(l)
	run, folds := feed(t, eng, l)
	if len(folds) != 0 || run.Iterations != 5 {
		t.Fatalf("setup: %d iterations, folds %v", run.Iterations, folds)
	}
	b, err := eng.Folder.Fold(ctx, run, fold.FoldOptions{First: 1, Last: 5, Level: fold.L2, Trigger: fold.TriggerManual, Strict: true, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("L2 block:\n%s", b.Content)
	lines := strings.Split(b.Content, "\n")
	if !strings.HasPrefix(lines[0], "[L2 · iterations 1–5] ") {
		t.Errorf("header: %q", lines[0])
	}
	// 1-3 sentences, each taken verbatim from a thought.
	var all []string
	for _, th := range parserThoughts {
		all = append(all, splitSentences(th)...)
	}
	sents := splitSentences(lines[1])
	if len(sents) < 1 || len(sents) > 3 {
		t.Errorf("want 1-3 sentences, got %d: %q", len(sents), lines[1])
	}
	for _, s := range sents {
		if !contains(all, s) {
			t.Errorf("sentence %q is not from a thought", s)
		}
	}
	if lines[2] != "Key actions:" {
		t.Fatalf("line 3 = %q, want Key actions:", lines[2])
	}
	var actions []string
	for _, ln := range lines[3:] {
		if !strings.HasPrefix(ln, "- ") {
			break
		}
		actions = append(actions, ln)
	}
	wantActions := []string{
		"- [iter 1] read_file src/parser/core.py → 40 lines ok",
		"- [iter 2] run_shell `pytest -q tests/test_ingest.py` → FAILED: AssertionError: assert 4 == 5",
		"- [iter 3] write_file src/parser/core.py → ok; create_file src/parser/rows.py → ok",
		"- [iter 4] run_shell `rm tests/fixtures/old.csv && mv src/helpers.py src/parser/helpers.py` → ok, 0 B",
		"- [iter 5] run_shell `pytest -q tests/test_ingest.py` → ok: 1 passed in 0.04s",
	}
	if !reflect.DeepEqual(actions, wantActions) {
		t.Errorf("key actions:\n got %q\nwant %q", actions, wantActions)
	}
	wantLines := []string{
		"Errors: run_shell `pytest -q tests/test_ingest.py`: AssertionError: assert 4 == 5",
		"Changed: modified src/parser/core.py; created src/parser/rows.py; deleted tests/fixtures/old.csv; moved src/helpers.py → src/parser/helpers.py",
	}
	for _, w := range wantLines {
		if !contains(lines, w) {
			t.Errorf("missing line %q", w)
		}
	}
	kw := lineWith(lines, "Keywords: ")
	if kw == "" || len(b.Keywords) == 0 || kw != "Keywords: "+strings.Join(b.Keywords, "; ") {
		t.Errorf("keywords line %q, block keywords %q", kw, b.Keywords)
	}
	if last := lines[len(lines)-1]; last != "[recall: iterations 1–5]" {
		t.Errorf("last line %q", last)
	}
	if want := []string{"run_shell `pytest -q tests/test_ingest.py`: AssertionError: assert 4 == 5"}; !reflect.DeepEqual(b.Errors, want) {
		t.Errorf("block errors %q", b.Errors)
	}
	if len(b.StateChanges) != 4 || b.Summarizer != fold.SummarizerExtractive || b.Kind != fold.KindSummary {
		t.Errorf("block: changes %q summarizer %q kind %q", b.StateChanges, b.Summarizer, b.Kind)
	}
	if b.Tokens != eng.Tokenizer.Count(b.Content) {
		t.Errorf("Tokens = %d, content counts %d", b.Tokens, eng.Tokenizer.Count(b.Content))
	}
}

func TestExtractiveChapterAndPhase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 32000, func(e *memory.Engine) { e.Config.Chunk = 5 })
	l := newDeltaLog("l3", "Fix the ingest parser.")
	parserFix(l)
	parserFix(l)
	run, _ := feed(t, eng, l)
	ch, err := eng.Folder.Fold(ctx, run, fold.FoldOptions{First: 1, Last: 10, Level: fold.L3, Trigger: fold.TriggerManual, Title: "Parser fixed"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("L3 block:\n%s", ch.Content)
	lines := strings.Split(ch.Content, "\n")
	if lines[0] != "[L3 · iterations 1–10] Parser fixed" || ch.Title != "Parser fixed" {
		t.Errorf("chapter header %q title %q", lines[0], ch.Title)
	}
	if kw := lineWith(lines, "Keywords: "); kw == "" || len(ch.Keywords) == 0 {
		t.Errorf("chapter keywords line %q (%q)", kw, ch.Keywords)
	}
	if last := lines[len(lines)-1]; last != "[recall: iterations 1–10]" {
		t.Errorf("chapter recall line %q", last)
	}
	// The chapter indexes two L2 summaries of Chunk iterations each.
	all, err := eng.Fold.AllBlocks(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, b := range all {
		if b.Parent == ch.ID {
			kids = append(kids, b.ID)
		}
	}
	if want := []string{"L2-1-5", "L2-6-10"}; !reflect.DeepEqual(kids, want) {
		t.Errorf("chapter children %q, want %q", kids, want)
	}

	ph, err := eng.Folder.Fold(ctx, run, fold.FoldOptions{First: 1, Last: 10, Level: fold.L4, Trigger: fold.TriggerManual})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ph.Content, "\n") {
		t.Errorf("L4 is not one line: %q", ph.Content)
	}
	if !regexp.MustCompile(`^\[L4 · iterations 1–10\] .+ — Parser fixed \[recall: iterations 1–10\]$`).MatchString(ph.Content) {
		t.Errorf("L4 line %q", ph.Content)
	}
}

func TestExtractiveIsDeterministic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 32000, nil)
	l := newDeltaLog("det", "Fix the ingest parser.")
	parserFix(l)
	run, _ := feed(t, eng, l)
	notes, err := eng.Fold.Notes(ctx, run.ID, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	its, err := eng.Journal.Iterations(ctx, run.ID, 1, 5, journal.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	df := map[string]int{"parser": 3, "ingest": 2}
	req := func() *fold.Request {
		return &fold.Request{Run: run.ID, Level: fold.L2, First: 1, Last: 5, Iterations: its, Notes: notes,
			Pinned: notes[1:3], DF: func(s string) int { return df[s] }, Docs: 5}
	}
	a, err := fold.Extractive{}.Summarize(ctx, req())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		b, err := fold.Extractive{}.Summarize(ctx, req())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("run %d differs:\n%+v\n%+v", i, a, b)
		}
	}
	if a.Content == "" || !strings.Contains(a.Content, "[recall: iterations 1–5]") {
		t.Fatalf("summary: %q", a.Content)
	}
	if _, err := (fold.Extractive{}).Summarize(ctx, &fold.Request{Level: fold.L3, First: 1, Last: 5}); err == nil {
		t.Error("an L3 summary without children should fail")
	}
}

// splitSentences splits at ". " and a final ".", as the tests' thoughts are
// written.
func splitSentences(s string) []string {
	var out []string
	for _, p := range strings.SplitAfter(strings.TrimSpace(s), ". ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lineWith(lines []string, prefix string) string {
	for _, ln := range lines {
		if strings.HasPrefix(ln, prefix) {
			return ln
		}
	}
	return ""
}
