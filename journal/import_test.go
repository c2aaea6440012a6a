package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, path, smallJournal(), true)

	res := mustImport(t, s, path, journal.ImportOptions{})
	if res.Run != "run-1" || res.Format != journal.FormatDelta || res.Added != 12 || res.Iterations != 3 {
		t.Fatalf("result = %+v", res)
	}
	run, err := s.Run(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if run.Task != "fix the parser" || run.Status != "COMPLETED" || run.Events != 12 || run.LastSeq != 12 || run.Iterations != 3 || run.AgentRef != "agents/coder" {
		t.Fatalf("run = %+v", run)
	}
	its, err := s.Iterations(ctx, "run-1", 1, 3, journal.ReadOptions{WithEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	it1, it2, it3 := its[0], its[1], its[2]
	if it1.Number != 1 || it1.FirstSeq != 3 || it1.LastSeq != 6 || it1.Status != journal.IterOK || it1.HasError {
		t.Errorf("iteration 1 = %+v", it1)
	}
	if len(it1.Calls) != 1 || it1.Calls[0].Name != "read_file" || it1.Calls[0].Command != "cat src/app.py" ||
		it1.Calls[0].Result == nil || it1.Calls[0].Result.Output != "def parse(): pass" {
		t.Errorf("iteration 1 calls = %+v", it1.Calls)
	}
	if len(it1.Events) != 4 {
		t.Errorf("iteration 1 has %d events, want 4 (the unknown type is kept)", len(it1.Events))
	}
	if strings.Contains(it1.Text(), "SECRET-HOOK-TEXT") {
		t.Errorf("unknown event type leaked into text:\n%s", it1.Text())
	}
	if it2.Status != journal.IterFailed || !it2.HasError || !it2.Calls[0].Result.Failed() {
		t.Errorf("iteration 2 = %+v", it2)
	}
	// The user message after iteration 2 opens iteration 3, which the next
	// THOUGHT joins; RUN_END extends it.
	if it3.FirstSeq != 10 || it3.LastSeq != 12 || len(it3.User) != 1 || it3.Thought != "Done with tests; now the docs." {
		t.Errorf("iteration 3 = %+v", it3)
	}
	txt := it2.Text()
	for _, want := range []string{"[iteration 2] failed", "Thought: Run the tests.", "Call run_shell", "$ pytest -q", "Result FAILED:", "AssertionError: expected 3"} {
		if !strings.Contains(txt, want) {
			t.Errorf("iteration 2 text lacks %q:\n%s", want, txt)
		}
	}
	one, err := s.Iteration(ctx, "run-1", 2, journal.ReadOptions{})
	if err != nil || one.Text() != txt {
		t.Errorf("Iteration(2) differs from Iterations(1,3)[1]: %v", err)
	}
	c, err := s.Counts(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Calls != 2 || c.FailedCalls != 1 || c.ErrorIterations != 1 || c.PendingCalls != 0 {
		t.Errorf("counts = %+v", c)
	}
}

func TestIterationRangeErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, path, smallJournal(), true)
	mustImport(t, s, path, journal.ImportOptions{})
	for _, r := range [][2]int{{0, 1}, {4, 4}, {2, 1}, {1, 9}} {
		_, err := s.Iterations(ctx, "run-1", r[0], r[1], journal.ReadOptions{})
		var re *journal.RangeError
		if !errors.As(err, &re) || !errors.Is(err, journal.ErrIterationNotFound) || !strings.Contains(err.Error(), "has iterations 1-3") {
			t.Errorf("range %v: err = %v", r, err)
		}
	}
	if _, err := s.Run(ctx, "nope"); !errors.Is(err, journal.ErrRunNotFound) {
		t.Errorf("unknown run: err = %v", err)
	}
}

func TestReimportIsIdempotentAndIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "run-1", "journal.jsonl")
	all := smallJournal()
	// Stop after the THOUGHT and ACTION_REQUEST of iteration 2: its result
	// arrives in the next import and must pair with the call stored now.
	writeLines(t, path, all[:8], true)
	res := mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 8 || res.Iterations != 2 {
		t.Fatalf("first import = %+v", res)
	}
	it, err := s.Iteration(ctx, "run-1", 2, journal.ReadOptions{})
	if err != nil || it.Status != journal.IterPending {
		t.Fatalf("iteration 2 = %+v, %v", it, err)
	}
	res = mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 0 || !res.Resumed {
		t.Fatalf("re-import = %+v, want nothing added and a resumed read", res)
	}
	writeLines(t, path, all, true)
	res = mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 4 || res.Iterations != 3 || res.NewIterations != 1 || !res.Resumed {
		t.Fatalf("incremental import = %+v", res)
	}
	it, err = s.Iteration(ctx, "run-1", 2, journal.ReadOptions{})
	if err != nil || it.Status != journal.IterFailed || it.Calls[0].Result == nil || len(it.Calls) != 1 {
		t.Fatalf("iteration 2 after the result arrived = %+v, %v", it, err)
	}
	run, _ := s.Run(ctx, "run-1")
	if run.Events != 12 || run.LastSeq != 12 || run.Status != "COMPLETED" {
		t.Fatalf("run = %+v", run)
	}
}

func TestPartialLastLineIsLeftForLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	all := smallJournal()
	// The last line is cut in the middle, as when Delta is still writing it.
	content := strings.Join(all[:5], "\n") + "\n" + all[5][:20]
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 5 || !res.PartialLine || res.LastSeq != 5 {
		t.Fatalf("import with a partial line = %+v", res)
	}
	// A complete line without its newline yet is still in progress.
	writeLines(t, path, all[:6], false)
	res = mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 0 || !res.PartialLine {
		t.Fatalf("import of an unterminated complete line = %+v", res)
	}
	writeLines(t, path, all, true)
	res = mustImport(t, s, path, journal.ImportOptions{})
	if res.Added != 7 || res.PartialLine {
		t.Fatalf("import after the line was finished = %+v", res)
	}
	if run, _ := s.Run(ctx, "run-1"); run.Events != 12 {
		t.Fatalf("events = %d, want 12", run.Events)
	}
}

func TestReplacedFileIsReadFromTheTop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	all := smallJournal()
	writeLines(t, path, all[:6], true)
	mustImport(t, s, path, journal.ImportOptions{RunID: "r"})
	// Same path, different head bytes (a rotated file): the cursor must not
	// be trusted, yet stored seqs are still skipped.
	replaced := append([]string{strings.Replace(all[0], "agents/coder", "agents/coder-v2", 1)}, all[1:]...)
	writeLines(t, path, replaced, true)
	res := mustImport(t, s, path, journal.ImportOptions{RunID: "r"})
	if res.Resumed || res.Added != 6 || res.Skipped != 6 {
		t.Fatalf("import of a replaced file = %+v", res)
	}
	if run, _ := s.Run(ctx, "r"); run.Events != 12 {
		t.Fatalf("events = %d", run.Events)
	}
}

func TestRunIDFromDirectoryWithoutRunStart(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), ".delta", "run-from-dir", "journal.jsonl")
	writeLines(t, path, smallJournal()[1:], true)
	if res := mustImport(t, s, path, journal.ImportOptions{}); res.Run != "run-from-dir" {
		t.Fatalf("run = %q", res.Run)
	}
	if res := mustImport(t, s, path, journal.ImportOptions{RunID: "forced"}); res.Run != "forced" || res.Added != 11 {
		t.Fatalf("forced run = %+v", res)
	}
}

func TestBadDeltaInput(t *testing.T) {
	t.Parallel()
	good := smallJournal()
	cases := []struct {
		name string
		bad  string // replaces line 4
		want string
	}{
		{"invalid JSON", `{"seq":4,"type":"THOUGHT","payload":{`, "journal.jsonl:4: invalid JSON"},
		{"not an object", `[1,2]`, "journal.jsonl:4: not a JSON object"},
		{"missing seq", `{"type":"THOUGHT","payload":{}}`, `journal.jsonl:4: missing "seq"`},
		{"string seq", `{"seq":"4","type":"THOUGHT","payload":{}}`, `journal.jsonl:4: "seq" must be an integer`},
		{"repeated seq", line(3, "THOUGHT", obj{"content": "x"}), "journal.jsonl:4: seq 3 does not increase (previous line had seq 3)"},
		{"payload not object", `{"seq":4,"type":"THOUGHT","payload":"text"}`, `journal.jsonl:4: "payload" must be a JSON object, got "text"`},
		{"missing payload", `{"seq":4,"type":"THOUGHT"}`, `journal.jsonl:4: "payload" must be a JSON object, got nothing`},
		{"missing type", `{"seq":4,"payload":{}}`, `journal.jsonl:4: missing "type"`},
		{"bad timestamp", `{"seq":4,"timestamp":"yesterday","type":"THOUGHT","payload":{}}`, `journal.jsonl:4: "timestamp" "yesterday" is not ISO 8601`},
		{"payload shape", `{"seq":4,"type":"THOUGHT","payload":{"tool_calls":"none"}}`, "journal.jsonl:4: event seq 4 (THOUGHT): payload does not match the type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, _ := openStore(t)
			dir := t.TempDir()
			// A good import first, so "unchanged" means more than "empty".
			okPath := filepath.Join(dir, "ok.jsonl")
			writeLines(t, okPath, good, true)
			mustImport(t, s, okPath, journal.ImportOptions{RunID: "other"})

			path := filepath.Join(dir, "journal.jsonl")
			lines := append([]string{}, good...)
			lines[3] = tc.bad
			writeLines(t, path, lines, true)
			_, err := s.ImportFile(ctx, path, journal.ImportOptions{RunID: "bad"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if !errors.Is(err, journal.ErrInvalidInput) {
				t.Errorf("err does not match ErrInvalidInput: %v", err)
			}
			runs, err := s.Runs(ctx)
			if err != nil || len(runs) != 1 || runs[0].ID != "other" || runs[0].Events != 12 {
				t.Fatalf("database changed by a failed import: %+v %v", runs, err)
			}
		})
	}
}

func TestImportErrorsOnMissingFileAndUnknownFormat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	if _, err := s.ImportFile(ctx, filepath.Join(t.TempDir(), "nope.jsonl"), journal.ImportOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(path, []byte("hello\n"), 0o644)
	_, err := s.ImportFile(ctx, path, journal.ImportOptions{})
	var ie *journal.InputError
	if !errors.As(err, &ie) || ie.Hint == "" || !strings.Contains(err.Error(), "cannot tell the format") {
		t.Errorf("unknown format: %v", err)
	}
	os.WriteFile(path, []byte(`{"seq":1}`+"\n"), 0o644)
	if _, err := s.ImportFile(ctx, path, journal.ImportOptions{Format: "yaml"}); err == nil || !strings.Contains(err.Error(), `unknown format "yaml"`) {
		t.Errorf("bad --format: %v", err)
	}
}

func TestImportRefusesADirectoryAndATranscriptWithoutMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	dir := t.TempDir()
	_, err := s.ImportFile(ctx, dir, journal.ImportOptions{})
	var ie *journal.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(ie.Hint, "journal.jsonl") {
		t.Errorf("a directory: %v", err)
	}
	for name, body := range map[string]string{"arr.json": "[]", "obj.json": `{"messages": []}`} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		_, err := s.ImportFile(ctx, path, journal.ImportOptions{})
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "no messages") {
			t.Errorf("%s: %v", body, err)
		}
	}
	if runs, err := s.Runs(ctx); err != nil || len(runs) != 0 {
		t.Errorf("an import of nothing made runs: %+v %v", runs, err)
	}
}

func TestLatestRunFollowsActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	if _, err := s.LatestRun(ctx); !errors.Is(err, journal.ErrNoRuns) {
		t.Fatalf("empty db: %v", err)
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	writeLines(t, path, smallJournal(), true)
	mustImport(t, s, path, journal.ImportOptions{RunID: "a"})
	mustImport(t, s, path, journal.ImportOptions{RunID: "b"})
	if r, _ := s.LatestRun(ctx); r.ID != "b" {
		t.Fatalf("latest = %s, want b", r.ID)
	}
	if _, err := s.Append(ctx, "a", journal.FormatDelta, []journal.Event{{Seq: 13, Type: "NOTE", Payload: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.LatestRun(ctx); r.ID != "a" {
		t.Fatalf("latest = %s, want a after appending to it", r.ID)
	}
	runs, _ := s.Runs(ctx)
	if len(runs) != 2 || runs[0].ID != "a" {
		t.Fatalf("runs = %+v", runs)
	}
}

func TestAppendRejectsDecreasingSeq(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t)
	ev := func(seq int64) journal.Event { return journal.Event{Seq: seq, Type: "NOTE", Payload: []byte(`{}`)} }
	if _, err := s.Append(ctx, "r", journal.FormatDelta, []journal.Event{ev(1), ev(5), ev(3)}); !errors.Is(err, journal.ErrSeqOrder) {
		t.Fatalf("err = %v", err)
	}
	if runs, _ := s.Runs(ctx); len(runs) != 0 {
		t.Fatalf("a failed append left %d runs", len(runs))
	}
	if res, err := s.Append(ctx, "r", journal.FormatDelta, []journal.Event{ev(1), ev(2)}); err != nil || res.Added != 2 {
		t.Fatal(res, err)
	}
	if res, err := s.Append(ctx, "r", journal.FormatDelta, []journal.Event{ev(1), ev(2), ev(3)}); err != nil || res.Added != 1 || res.Skipped != 2 {
		t.Fatal(res, err)
	}
}
