package fold

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/scoring"
)

// FuzzParseAnswer: whatever a model answers, parsing never panics, and an
// accepted answer has every field within its limits.
func FuzzParseAnswer(f *testing.F) {
	tok, err := scoring.NewTokenizer("")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"title":"T","content":"C.","outcomes":[],"keywords":["a"],"entities":"x.py","state_changes":null}`,
		"```json\n{\"title\":\"T\",\"content\":\"C\",\"outcomes\":[\"o\"],\"keywords\":[],\"entities\":[],\"state_changes\":[]}\n```",
		`Sure! {"title": 1}`, `[]`, `null`, ``, `{"missing": ["a fact"], "amended": {"title": "x"}}`,
	} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, text string, level int) {
		level = L2 + (max(level, -level)%3+3)%3
		a, err := parseAnswer(tok, text, level)
		if err == nil {
			if a.Title == "" || a.Content == "" || utf8.RuneCountInString(a.Title) > llmTitleRunes || tok.Count(a.Content) > llmContentTokens[level] {
				t.Fatalf("accepted an answer out of bounds: %+v", a)
			}
			for _, l := range [][]string{a.Outcomes, a.Keywords, a.Entities, a.StateChanges} {
				if len(l) > llmListItems {
					t.Fatalf("list of %d items", len(l))
				}
				for _, it := range l {
					if strings.TrimSpace(it) == "" || utf8.RuneCountInString(it) > llmItemRunes {
						t.Fatalf("bad item %q", it)
					}
				}
			}
		}
		missing, amended, err := parseCheck(tok, text, level)
		if err == nil && amended != nil && len(missing) == 0 {
			t.Fatalf("an amendment without missing facts")
		}
	})
}
