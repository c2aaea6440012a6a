package scoring

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMilestone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		thought string
		want    string
		ok      bool
	}{
		// Declarations.
		{"Phase 2 completed: parser fixed.", "parser fixed", true},
		{"Milestone: caching layer done.", "caching layer", true},
		{"Moving on to documentation.", "before documentation", true},
		{"Finished the reproduction step.", "reproduction", true},
		{"Phase 12 (write the docs) is complete.", "write the docs", true},
		{"That's the exploration wrapped up.", "exploration", true},
		{"Phase 8 completed: failing cache eviction test reproduced.", "failing cache eviction test reproduced", true},
		{"phase 3 DONE", "Phase 3", true},
		{"Phase two complete - tokenizer rewritten", "tokenizer rewritten", true},
		{"Step 4 is finished.", "Step 4", true},
		{"Completed phase 4: tests green.", "tests green", true},
		{"Done with stage 1.", "Stage 1", true},
		{"Milestone reached: parser rewritten!", "parser rewritten", true},
		{"**Milestone**: schema migrated", "schema migrated", true},
		{"Okay, I think the exploration phase is done.", "exploration", true},
		{"Data cleaning stage finished!", "Data cleaning", true},
		{"Done with the setup phase, tests run now.", "setup", true},
		{"Exploration phase done, moving on to implementation.", "Exploration", true},
		{"Tests pass. Moving on to the packaging step.", "before packaging step", true},
		{"Let's move on to benchmarks, then docs.", "before benchmarks", true},
		{"I read the logs.\nPhase 5 completed: root cause found.\nNext the fix.", "root cause found", true},
		{"Phase 1 completed: " + strings.Repeat("very ", 20) + "long title", strings.TrimSpace(strings.Repeat("very ", 12)), true},

		// Not declarations.
		{"", "", false},
		{"done reading the file", "", false},
		{"I finished the function", "", false},
		{"the test is done", "", false},
		{"not done yet with phase 2", "", false},
		{"Phase 2 is not complete yet.", "", false},
		{"I haven't finished the setup step.", "", false},
		{"Is phase 2 complete?", "", false},
		{"Phase 2 completed?", "", false},
		{"Once phase 2 is done we can deploy.", "", false},
		{"Before moving on to docs, I need to fix the parser.", "", false},
		{"We will be done with the setup step soon.", "", false},
		{"The next milestone is deployment.", "", false},
		{"Phase 3 will cover the parser.", "", false},
		{"Let me check the cache eviction phase logs.", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.thought, func(t *testing.T) {
			t.Parallel()
			got, ok := Milestone(tt.thought)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Milestone(%q) = %q, %v; want %q, %v", tt.thought, got, ok, tt.want, tt.ok)
			}
			if utf8.RuneCountInString(got) > 60 {
				t.Errorf("title %q is longer than 60 runes", got)
			}
		})
	}
}
