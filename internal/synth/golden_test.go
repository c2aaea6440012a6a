package synth

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// committedJournal is the generated journal kept in the repository for demos
// and for tests of other packages. It uses the default MaxOutputBytes
// (24000); the file is about 2 MB.
const committedJournal = "../../testdata/journals/synth-400.jsonl"

// committedConfig is the Config that produces committedJournal.
var committedConfig = Bundled

// TestCommittedJournal checks that the committed journal is exactly what the
// generator produces. After an intended change to the generator, regenerate
// it with: go test ./internal/synth -run TestCommittedJournal -update
func TestCommittedJournal(t *testing.T) {
	t.Parallel()
	got := jsonl(t, committedConfig)
	if *update {
		if err := os.MkdirAll(filepath.Dir(committedJournal), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(committedJournal, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", committedJournal, len(got))
	}
	want, err := os.ReadFile(committedJournal)
	if err != nil {
		t.Fatalf("%v (generate it with -update)", err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		line := bytes.Count(want[:i], []byte("\n")) + 1
		t.Fatalf("%s differs from the generator output at byte %d (line %d); if the change is intended, rerun with -update",
			committedJournal, i, line)
	}
	if len(want) > 2_500_000 {
		t.Errorf("%s is %d bytes; keep it under 2.5 MB (lower MaxOutputBytes)", committedJournal, len(want))
	}
	checkStructure(t, parseJSONL(t, want), committedConfig.Iterations)
}
