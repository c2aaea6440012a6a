package recall_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/pgtest"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// Floors measured on locomo-dev.json (3 conversations, 497 questions) when
// this test was written; recall must not fall below them.
const (
	floorRecallAt5  = 0.50
	floorRecallAt10 = 0.60
)

// TestLoCoMoEvidenceRecall imports each LoCoMo dev conversation as a run
// (one turn per iteration), retrieves with each question's text, and
// measures how many of its evidence turns are in the recalled content at 5
// and 10 hits, next to a recency baseline holding as many turns as the
// recall brought back.
func TestLoCoMoEvidenceRecall(t *testing.T) {
	t.Parallel()
	convs, eng := locomoDev(t)
	ctx := context.Background()
	type tally struct{ questions, evidence, at5, at10, recent5, recent10 int }
	by := map[int]*tally{}
	all := &tally{}
	for _, c := range convs {
		run := importConversation(t, eng, c)
		turns := c.Turns()
		for _, q := range c.Questions {
			if len(q.Evidence) == 0 {
				continue
			}
			hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{q.Question}, Limit: 10, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			found := func(k int) (n, turnsShown int) {
				var content strings.Builder
				for _, h := range hits[:min(k, len(hits))] {
					content.WriteString(h.Content)
					content.WriteByte('\n')
				}
				text := content.String()
				for _, e := range q.Evidence {
					if strings.Contains(text, "["+e+"]") {
						n++
					}
				}
				return n, strings.Count(text, "] ")
			}
			recent := func(n int) int {
				got := 0
				for _, e := range q.Evidence {
					for _, d := range turns[max(0, len(turns)-n):] {
						if d == e {
							got++
						}
					}
				}
				return got
			}
			t5, n5 := found(5)
			t10, n10 := found(10)
			for _, x := range []*tally{all, by[q.Category]} {
				if x == nil {
					x = &tally{}
					by[q.Category] = x
				}
				x.questions++
				x.evidence += len(q.Evidence)
				x.at5 += t5
				x.at10 += t10
				x.recent5 += recent(n5)
				x.recent10 += recent(n10)
			}
		}
	}
	ratio := func(a, b int) float64 { return float64(a) / float64(max(b, 1)) }
	var report strings.Builder
	fmt.Fprintf(&report, "%-12s %9s %9s %8s %8s %9s %9s\n", "category", "questions", "evidence", "R@5", "R@10", "recent@5", "recent@10")
	for cat := 1; cat <= 5; cat++ {
		if x := by[cat]; x != nil {
			fmt.Fprintf(&report, "%-12s %9d %9d %8.3f %8.3f %9.3f %9.3f\n", locomo.Categories[cat], x.questions, x.evidence,
				ratio(x.at5, x.evidence), ratio(x.at10, x.evidence), ratio(x.recent5, x.evidence), ratio(x.recent10, x.evidence))
		}
	}
	fmt.Fprintf(&report, "%-12s %9d %9d %8.3f %8.3f %9.3f %9.3f\n", "overall", all.questions, all.evidence,
		ratio(all.at5, all.evidence), ratio(all.at10, all.evidence), ratio(all.recent5, all.evidence), ratio(all.recent10, all.evidence))
	t.Logf("evidence recall (share of evidence turns in the recalled content), recency baseline with as many turns:\n%s", report.String())
	if r := ratio(all.at5, all.evidence); r < floorRecallAt5 {
		t.Errorf("evidence recall@5 %.3f under the floor %.2f", r, floorRecallAt5)
	}
	if r := ratio(all.at10, all.evidence); r < floorRecallAt10 {
		t.Errorf("evidence recall@10 %.3f under the floor %.2f", r, floorRecallAt10)
	}
	if all.at10 <= all.recent10 {
		t.Errorf("recall@10 (%d turns) does not beat the recency baseline (%d)", all.at10, all.recent10)
	}
}

// locomoDev loads the LoCoMo dev conversations and opens an engine for
// them at 4,000 tokens, or skips the test when they are not there or
// tests are short: their conversations are long.
func locomoDev(t *testing.T) ([]locomo.Conversation, *memory.Engine) {
	t.Helper()
	if testing.Short() {
		t.Skip("imports LoCoMo's long conversations")
	}
	convs, err := locomo.Load(filepath.Join("..", "..", "shared", "evaldata", "locomo", "locomo-dev.json"))
	if err != nil {
		t.Skipf("LoCoMo dev data not here: %v", err)
	}
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: pgtest.Target(t, t.TempDir()), Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return convs, eng
}

// importConversation appends a conversation to the engine as a run of its
// own, one turn an iteration, updates it (folds, index) and returns it.
func importConversation(t *testing.T, eng *memory.Engine, c locomo.Conversation) journal.Run {
	t.Helper()
	ctx := context.Background()
	if _, err := eng.Journal.Append(ctx, c.ID, journal.FormatDelta, c.Events()); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	run, err := eng.Journal.Run(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
