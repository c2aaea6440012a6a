package locomo

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParseEvidence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"D1:3", []string{"D1:3"}, true},
		{"D8:6; D9:17", []string{"D8:6", "D9:17"}, false},
		{"D:11:26", []string{"D11:26"}, false},
		{" D2:4 ", []string{"D2:4"}, true},
		{"D10", nil, false},
		{"", nil, false},
	}
	for _, c := range cases {
		got, ok := ParseEvidence(c.in)
		if !slices.Equal(got, c.want) || ok != c.ok {
			t.Errorf("ParseEvidence(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestLoadDevFile(t *testing.T) {
	t.Parallel()
	convs, err := Load(filepath.Join("..", "..", "..", "shared", "evaldata", "locomo", "locomo-dev.json"))
	if err != nil {
		t.Skipf("LoCoMo dev data not here: %v", err)
	}
	if len(convs) == 0 {
		t.Fatal("no conversations")
	}
	bad := 0
	for _, c := range convs {
		if len(c.Sessions) == 0 || c.SpeakerA == "" {
			t.Fatalf("%s: sessions %d, speaker %q", c.ID, len(c.Sessions), c.SpeakerA)
		}
		turns := c.Turns()
		if evs := c.Events(); len(evs) != len(turns)+1 {
			t.Fatalf("%s: %d events for %d turns", c.ID, len(evs), len(turns))
		}
		for _, q := range c.Questions {
			bad += len(q.BadEvidence)
			for _, e := range q.Evidence {
				if !slices.Contains(turns, e) {
					t.Logf("%s: evidence %s of %q names no turn", c.ID, e, q.Question)
				}
			}
		}
	}
	if bad == 0 {
		t.Fatal("the dev file has a malformed evidence entry (\"D8:6; D9:17\"); none was reported")
	}
}

// FuzzParseEvidence checks that any entry parses without panicking, into
// well-formed ids only, and that ok means exactly one id, the whole entry.
func FuzzParseEvidence(f *testing.F) {
	for _, s := range []string{"D1:3", "D8:6; D9:17", "D:11:26", " D2:4 ", "D10", "", "d1:3", "D1:3,D1:4"} {
		f.Add(s)
	}
	wellFormed := regexp.MustCompile(`^D\d+:\d+$`)
	f.Fuzz(func(t *testing.T, s string) {
		ids, ok := ParseEvidence(s)
		for _, id := range ids {
			if !wellFormed.MatchString(id) {
				t.Fatalf("ParseEvidence(%q) gave %q", s, id)
			}
		}
		if ok && (len(ids) != 1 || strings.TrimSpace(s) != ids[0]) {
			t.Fatalf("ParseEvidence(%q) = %v, ok", s, ids)
		}
	})
}
