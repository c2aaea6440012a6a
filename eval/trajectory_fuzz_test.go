package eval

import (
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// FuzzParseTranscripts: whatever a file holds, parseTranscripts returns
// transcripts with a name and a format, or an error; and the words and
// targets of any text do not panic and keep their rules.
func FuzzParseTranscripts(f *testing.F) {
	for _, seed := range []string{miniTranscript, tauArray(2), `{"messages": []}`, `{"seq": 1, "type": "RUN_START", "payload": {}}` + "\n",
		`{"traj": [{"role": "user", "content": "x"}]}` + "\n", "[1]", `[{"task_id": null, "messages": [}]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, w := range words(string(data)) {
			if len([]rune(w)) < minTermLen || w != strings.ToLower(w) {
				t.Fatalf("word %q", w)
			}
		}
		ts, err := parseTranscripts("fuzz.json", data)
		if err != nil {
			return
		}
		for _, tr := range ts {
			if !strings.HasPrefix(tr.Name, "fuzz.json") || (tr.Format != journal.FormatOpenAI && tr.Format != journal.FormatDelta) {
				t.Fatalf("transcript %q, format %q", tr.Name, tr.Format)
			}
		}
	})
}
