package eval

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

// miniTrajectory is miniTranscript, prepared as the eval prepares a run.
func miniTrajectory(t *testing.T) *trajectory {
	t.Helper()
	ts, err := parseTranscripts("mini.json", []byte(miniTranscript))
	if err != nil {
		t.Fatal(err)
	}
	runs, _, _, err := prepareTrajectories(context.Background(), filepath.Join(t.TempDir(), "scratch"), memory.Config{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	return runs[0]
}

func TestWords(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"Read /src/App.py, then done.":         {"read", "src/app.py", "then", "done"},
		`{"date": "2024-05-20T08:00", "n": 7}`: {"date", "2024-05-20t08"},
		"a-b ... __ x.y.z HAT136":              {"a-b", "x.y.z", "hat136"},
		"café naïve":                           {"café", "naïve"},
	} {
		if got := words(text); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestCallTargets(t *testing.T) {
	t.Parallel()
	calls := []journal.ToolCall{
		{Name: "book", Args: json.RawMessage(`{"user_id": "mia_li_3668", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}], "cabin": "The", "count": 2, "ok": true, "pax": ["Mia", "Li"]}`)},
		{Name: "shell", Args: json.RawMessage(`"not json at all"`)},
		{Name: "read", Args: json.RawMessage(`{"path": " src/app.py ", "mode": "r", "note": "file", "again": "MIA_LI_3668", "dots": "..."}`)},
	}
	// Object members in key order; "The" and "file" are common words, "r"
	// and "Li" too short, "..." has no letter; repeats count once.
	want := []string{"2024-05-20", "hat136", "mia", "mia_li_3668", "not json at all", "src/app.py"}
	if got := callTargets(calls); !slices.Equal(got, want) {
		t.Errorf("callTargets = %q, want %q", got, want)
	}
}

// TestProbes checks the probes of miniTranscript and their evidence
// exactly. Evidence terms are ranked by how many of the steps before the
// probe hold them, ties in order of appearance; the static part ("you are
// a careful coding agent", "fix the token limit in the parser") and the
// probe's own calls are left out.
func TestProbes(t *testing.T) {
	t.Parallel()
	tr := miniTrajectory(t)
	if len(tr.steps) != 9 {
		t.Fatalf("%d steps, want 9", len(tr.steps))
	}
	want := []Probe{
		// step 1 output: def parse text return (one step each) before
		// import yaml_loader (steps 1 and 3); token_limit is in step 4's call.
		{Step: 4, Source: 1, Targets: []string{"src/parser.py"}, Evidence: []string{"def", "parse", "text", "return", "import", "yaml_loader"}},
		// step 3 output: 4096 is in steps 2, 3 and 4, import and
		// yaml_loader in 1 and 3, the rest in 3 alone.
		{Step: 5, Source: 3, Targets: []string{"pytest -q"}, Evidence: []string{"failed", "test_parse", "expected", "got", "2048", "import", "yaml_loader", "4096"}},
		{Step: 6, Source: 2, Targets: []string{"config/settings.yaml"}, Evidence: []string{"mode", "strict", "import_paths", "none", "token_limit", "4096"}},
		// step 4 answered "ok": its call stands in, less what step 6 says.
		{Step: 6, Source: 4, Targets: []string{"src/parser.py"}, Evidence: []string{"edit_file", "old", "new", "token_limit", "4096"}, FromAction: true},
	}
	if !reflect.DeepEqual(tr.probes, want) {
		t.Errorf("probes:\n got %+v\nwant %+v", tr.probes, want)
	}
	if tr.skipped != 1 {
		t.Errorf("skipped %d, want 1: (8,7)", tr.skipped)
	}
	// Half the terms, rounded up: 3 of 6, 3 of 5.
	for _, p := range []Probe{want[0], want[3]} {
		ev := p.Evidence
		if !p.holds(map[string]bool{ev[0]: true, ev[2]: true, ev[4]: true}) || p.holds(map[string]bool{ev[0]: true, ev[1]: true}) {
			t.Errorf("a probe of %d terms must be held by 3 of them, not by 2", len(ev))
		}
	}
}

func TestStepIndexRank(t *testing.T) {
	t.Parallel()
	x := newStepIndex([]string{"alpha beta", "gamma delta", "alpha alpha gamma", "beta"})
	// Over the first three steps: "alpha" is in two, "delta" in one.
	if got := x.rank([]string{"alpha", "delta"}, 3); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("rank = %v, want [1 2 0]", got)
	}
	// Ties go to the newest step; steps matching nothing are not ranked.
	if got := x.rank([]string{"beta"}, 4); !slices.Equal(got, []int{3, 0}) {
		t.Errorf("rank = %v, want [3 0]", got)
	}
	if got := x.df("alpha", 2); got != 1 {
		t.Errorf("df(alpha, 2) = %d, want 1", got)
	}
}
