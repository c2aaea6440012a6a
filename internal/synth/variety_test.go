package synth

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/journal"
)

// milestoneRE matches the milestone phrasings the agent uses in thoughts.
var milestoneRE = regexp.MustCompile(`Phase \d+ completed: |Milestone: .+ done\.|Moving on to |Finished the .+ step\.|Phase \d+ \(.+\) is complete\.|wrapped up\.`)

// runStats summarises a journal for the variety checks.
type runStats struct {
	tools          map[string]int
	failures       map[string]int // by kind
	milestones     int
	over10KB       int
	moves, deletes int
	creates        int
	noCall, twoCal int
	users, warns   int
}

func collectStats(t *testing.T, evs []journal.Event) runStats {
	t.Helper()
	st := runStats{tools: map[string]int{}, failures: map[string]int{}}
	for _, e := range evs {
		switch e.Type {
		case journal.TypeThought:
			th, _ := e.Thought()
			if milestoneRE.MatchString(th.Content) {
				st.milestones++
			}
			switch len(th.ToolCalls) {
			case 0:
				st.noCall++
			case 2:
				st.twoCal++
			}
		case journal.TypeActionRequest:
			req, _ := e.ActionRequest()
			st.tools[req.ToolName]++
			cmd := req.ResolvedCommand
			if req.ToolName == toolShell {
				if strings.HasPrefix(cmd, "mv ") || strings.HasPrefix(cmd, "git mv ") {
					st.moves++
				}
				if strings.HasPrefix(cmd, "rm ") || strings.HasPrefix(cmd, "git rm ") {
					st.deletes++
				}
			}
		case journal.TypeActionResult:
			res, _ := e.ActionResult()
			o := res.ObservationContent
			if len(o) > 10_000 {
				st.over10KB++
			}
			if strings.HasPrefix(o, "Created ") {
				st.creates++
			}
			if journal.IsFailureStatus(res.Status) {
				st.failures[failureKind(o)]++
			}
		case journal.TypeUserMessage:
			st.users++
		case journal.TypeSystemMessage:
			st.warns++
		}
	}
	return st
}

// failureKind classifies a failed observation.
func failureKind(o string) string {
	switch {
	case strings.Contains(o, "No such file or directory"):
		return "missing file"
	case strings.Contains(o, "Traceback (most recent call last)") && strings.Contains(o, "AssertionError"):
		return "traceback+AssertionError"
	case strings.Contains(o, "Connection refused"):
		return "connection refused"
	case strings.Contains(o, "Permission denied"):
		return "permission denied"
	case strings.Contains(o, "[exit status "):
		return "non-zero exit"
	default:
		return "other"
	}
}

func TestVariety(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{7, 11, 2024} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			st := collectStats(t, allEvents(t, Config{Seed: seed, Iterations: 400}))
			for _, tool := range []string{toolRead, toolWrite, toolShell, toolSearch, toolList, toolHTTP} {
				if st.tools[tool] == 0 {
					t.Errorf("tool %s never used (%v)", tool, st.tools)
				}
			}
			for _, kind := range []string{"missing file", "traceback+AssertionError", "connection refused"} {
				if st.failures[kind] == 0 {
					t.Errorf("no %s failure (%v)", kind, st.failures)
				}
			}
			if st.milestones < 4 {
				t.Errorf("%d milestone declarations, want >= 4", st.milestones)
			}
			if st.over10KB == 0 {
				t.Error("no output exceeds 10 KB")
			}
			if st.moves == 0 || st.deletes == 0 || st.creates == 0 {
				t.Errorf("moves=%d deletes=%d creates=%d, want all > 0", st.moves, st.deletes, st.creates)
			}
			if st.noCall == 0 || st.twoCal == 0 {
				t.Errorf("iterations with 0 calls: %d, with 2 calls: %d; want both > 0", st.noCall, st.twoCal)
			}
			if st.users < 2 || st.warns == 0 {
				t.Errorf("user messages=%d system messages=%d", st.users, st.warns)
			}
		})
	}
}

func TestMaxOutputBytes(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{40, 200, 1000, 0} {
		t.Run(fmt.Sprint("cap", limit), func(t *testing.T) {
			t.Parallel()
			want := limit
			if want == 0 {
				want = 24_000
			}
			evs := allEvents(t, Config{Seed: 21, Iterations: 300, MaxOutputBytes: limit})
			longest, truncated := 0, 0
			for _, e := range evs {
				switch e.Type {
				case journal.TypeActionResult:
					res, _ := e.ActionResult()
					longest = max(longest, len(res.ObservationContent))
					if strings.Contains(res.ObservationContent, "[... output truncated") {
						truncated++
					}
				case journal.TypeActionRequest:
					req, _ := e.ActionRequest()
					if req.ToolName == toolWrite {
						var args writeArgs
						if err := json.Unmarshal(req.ToolArgs, &args); err != nil {
							t.Fatal(err)
						}
						if len(args.Content) > want {
							t.Errorf("seq %d: write content %d bytes > cap %d", e.Seq, len(args.Content), want)
						}
					}
				}
			}
			if longest > want {
				t.Errorf("longest output %d bytes > cap %d", longest, want)
			}
			// Below ~60 bytes the marker does not fit and outputs are cut bare.
			if want >= 100 && truncated == 0 {
				t.Errorf("no output carries a truncation marker at cap %d", want)
			}
		})
	}
}

// The cap changes output text only: thoughts and requested tools stay the same.
func TestCapKeepsStructure(t *testing.T) {
	t.Parallel()
	shape := func(cfg Config) []string {
		var s []string
		for _, e := range allEvents(t, cfg) {
			switch e.Type {
			case journal.TypeThought:
				th, _ := e.Thought()
				s = append(s, th.Content)
			case journal.TypeActionResult:
				res, _ := e.ActionResult()
				s = append(s, res.ActionID+" "+res.Status)
			}
		}
		return s
	}
	a := shape(Config{Seed: 8, Iterations: 200})
	b := shape(Config{Seed: 8, Iterations: 200, MaxOutputBytes: 200})
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Error("MaxOutputBytes changed the thoughts or statuses of the run")
	}
}
