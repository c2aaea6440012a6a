package scoring

import (
	"os"
	"strings"
	"testing"
)

// TestPatternsCompile compiles every lazily compiled pattern: a bad one
// would otherwise panic only when some text first reaches it.
func TestPatternsCompile(t *testing.T) {
	t.Parallel()
	if len(patterns) < 20 {
		t.Fatalf("%d patterns registered; signals and milestones have more", len(patterns))
	}
	for _, p := range patterns {
		if p() == nil {
			t.Fatal("a pattern compiled to nil")
		}
	}
}

// TestMayDeclareKeepsEveryMatch checks the milestone prefilter: no sentence
// it turns away matches any milestone pattern, over every sentence of the
// bundled journal and sentences that match in odd case or spacing, and it
// turns most of the journal's sentences away (or it would save nothing).
func TestMayDeclareKeepsEveryMatch(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../testdata/journals/synth-400.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	corpus := sentences(strings.ReplaceAll(string(data), `\n`, "\n"))
	corpus = append(corpus, "PHASE 2 COMPLETED: parser fixed.", "MiLeStOnE: done", "moving\ton to docs", "let us MOVE  on to x",
		"That's the setup Wrapped Up.", "StAgE 3 is done", "phaſe 2 completed", "Phase 2 completed — ok",
		"nothing to see here", "done reading the file")
	turned, matched := 0, 0
	for _, s := range corpus {
		any := false
		for _, p := range milestonePatterns {
			any = any || p.re().MatchString(s)
		}
		if any {
			matched++
		}
		if mayDeclare(s) {
			continue
		}
		turned++
		if any {
			t.Fatalf("mayDeclare turns away %q, which a milestone pattern matches", s)
		}
	}
	if matched < 8 || turned < len(corpus)/2 {
		t.Fatalf("%d of %d sentences turned away, %d matched: the corpus does not test the prefilter", turned, len(corpus), matched)
	}
}
