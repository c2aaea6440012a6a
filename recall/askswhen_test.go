package recall

import "testing"

// TestAsksWhen reads which questions ask for a time or a span of it, and
// leaves alone those that name a time (the time cues read those) or ask
// something else.
func TestAsksWhen(t *testing.T) {
	for _, c := range []struct {
		question string
		want     bool
	}{
		{"When did Melanie run a charity race?", true},
		{"  when is Jon's studio opening?", true},
		{"What year did Caroline move from Sweden?", true},
		{"Which month did Gina open her store?", true},
		{"What time does the deploy job start?", true},
		{"How long ago did John adopt Max?", true},
		{"How long has Caroline had her current group of friends?", true},
		{"Since when has the lease been 63 seconds?", true},
		{"What did Melanie paint last year?", false},
		{"Where did Caroline go when she was ten?", false},
		{"What did she say about the weather?", false},
		{"Who came to the museum two months ago?", false},
		{"What kind of art does Caroline make?", false},
	} {
		if got := asksWhen(c.question); got != c.want {
			t.Errorf("asksWhen(%q) = %v, want %v", c.question, got, c.want)
		}
	}
}
