package scoring

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthJournal returns testdata/journals/synth-400.jsonl: about 1.9 MB of
// journal events with code, logs and prose.
func synthJournal(tb testing.TB) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "journals", "synth-400.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

func TestCountParitySynthJournal(t *testing.T) {
	t.Parallel()
	journal := synthJournal(t)
	for _, enc := range acceptedEncodings {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			for _, line := range strings.Split(journal, "\n") {
				if err := countError(t, enc, line); err != nil {
					t.Fatal(err)
				}
			}
			if err := countError(t, enc, journal); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// evalDir is the shared evaluation data, next to the repository checkout.
var evalDir = filepath.Join("..", "..", "shared", "evaldata")

func TestCountParityEvalData(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(evalDir, "longmemeval", "s_cleaned", "*.json"))
	// A quarter of the LongMemEval files (about 10k distinct texts with the
	// LoCoMo turns) keeps the test to seconds; -short keeps one.
	if limit := max(len(files)/4, 1); testing.Short() && len(files) > 1 {
		files = files[:1]
	} else if len(files) > limit {
		files = files[:limit]
	}
	files = append(files, filepath.Join(evalDir, "locomo", "locomo-dev.json"))
	seen := map[string]bool{}
	var texts []string
	for _, path := range files {
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			t.Logf("skipping %s: not present", path)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, s := range jsonStrings(doc) {
			if !seen[s] {
				seen[s] = true
				texts = append(texts, s)
			}
		}
	}
	if len(texts) == 0 {
		t.Skipf("no evaluation data under %s", evalDir)
	}
	t.Logf("%d distinct texts from %d files", len(texts), len(files))
	for _, enc := range acceptedEncodings {
		for _, s := range texts {
			if err := countError(t, enc, s); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// jsonStrings returns every string value in a decoded JSON document: the
// conversation turns and sessions, questions and answers of the datasets.
func jsonStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	}
	return nil
}
