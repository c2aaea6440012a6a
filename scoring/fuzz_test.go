package scoring

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are inputs of every shape the heuristics care about.
var fuzzSeeds = []string{
	"", sampleThought, sampleOutput, "Phase 2 completed: parser fixed.",
	"mv a b && cat > x <<EOF\nrm y\nEOF\n", "'unterminated \"quote `tick", "\xff\xfe\x00 invalid",
	"ß/ẞ/İ/ǅ camelČase snake_ŝase https://例え.jp/パス", "E1234:ENOENT:localhost:99999:",
}

func FuzzEntities(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		seen := map[Entity]bool{}
		for _, e := range Entities(text) {
			if e.Value == "" || !strings.Contains(text, strings.TrimPrefix(e.Value, "HTTP ")) {
				t.Fatalf("entity %v is not from the text", e)
			}
			if seen[e] {
				t.Fatalf("entity %v reported twice", e)
			}
			seen[e] = true
			if s := Specificity(e); s <= 0 || s > 1 {
				t.Fatalf("Specificity(%v) = %v", e, s)
			}
		}
	})
}

func FuzzTerms(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms := Terms(text)
		for _, term := range terms {
			if term == "" || strings.ContainsAny(term, " \t\n") {
				t.Fatalf("bad term %q", term)
			}
			if utf8.ValidString(term) && term != strings.ToLower(term) {
				t.Fatalf("term %q is not lower-case", term)
			}
		}
		Keywords(terms, func(string) int { return 1 }, 3, 5)
	})
}

func FuzzStateChanges(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add("bash", `{"command":"x"}`, s)
	}
	f.Fuzz(func(t *testing.T, tool, args, command string) {
		for _, c := range StateChanges(tool, []byte(args), command) {
			twoEnds := c.Op == ChangeMoved || c.Op == ChangeCopied || c.Op == ChangeLinked
			if c.Path == "" || twoEnds != (c.To != "") || (c.Value != "") && c.Op != ChangeMode && c.Op != ChangeOwner {
				t.Fatalf("malformed change %#v", c)
			}
			for _, e := range c.Effects() {
				if e.Entity == "" || e.Entity != EntityKey(e.Entity) {
					t.Fatalf("change %#v: effect %#v names no entity, or not as EntityKey spells it", c, e)
				}
			}
		}
		KindOfTool(tool)
	})
}

func FuzzSignals(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, output string, maxLen int) {
		FailureText(output)
		line := ErrorLine(output, maxLen)
		if maxLen > 0 && utf8.RuneCountInString(line) > maxLen {
			t.Fatalf("ErrorLine longer than %d: %q", maxLen, line)
		}
		if title, ok := Milestone(output); ok != (title != "") || utf8.RuneCountInString(title) > 60 {
			t.Fatalf("Milestone = %q, %v", title, ok)
		}
	})
}
