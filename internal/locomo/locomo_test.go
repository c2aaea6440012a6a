package locomo

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestEventsCarryTheSessionDates: each turn's event is dated at its
// session's date, a minute after the turn before; a session whose date
// does not parse, or comes before the turn before, goes on after it.
func TestEventsCarryTheSessionDates(t *testing.T) {
	t.Parallel()
	turn := func(id string) Turn { return Turn{Speaker: "Ana", DiaID: id, Text: "hello"} }
	c := Conversation{ID: "c", SpeakerA: "Ana", SpeakerB: "Ben", Sessions: []Session{
		{Number: 1, DateTime: "1:56 pm on 8 May, 2023", Turns: []Turn{turn("D1:1"), turn("D1:2")}},
		{Number: 2, DateTime: "", Turns: []Turn{turn("D2:1")}},
		{Number: 3, DateTime: "10:37 am on 27 June, 2023", Turns: []Turn{turn("D3:1")}},
		{Number: 4, DateTime: "9:00 am on 1 June, 2023", Turns: []Turn{turn("D4:1")}},
	}}
	ev := c.Events()
	may8 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	june27 := time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)
	want := []time.Time{may8, may8.Add(time.Minute), may8.Add(2 * time.Minute), may8.Add(3 * time.Minute), june27, june27.Add(time.Minute)}
	if len(ev) != len(want) {
		t.Fatalf("%d events, want %d", len(ev), len(want))
	}
	for i, e := range ev {
		if !e.Timestamp.Equal(want[i]) {
			t.Errorf("event %d at %s, want %s", i+1, e.Timestamp, want[i])
		}
	}
}

// TestLoadRefusesAnEmptyList: an eval of no conversation would print a
// table of zeros, which reads as a result.
func TestLoadRefusesAnEmptyList(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(path, []byte("[]\n"), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "empty.json") || !strings.Contains(err.Error(), "no LoCoMo samples") {
		t.Errorf("an empty list: %v", err)
	}
}
