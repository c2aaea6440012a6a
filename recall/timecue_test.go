package recall

import (
	"testing"
	"time"
)

// TestTimeCues reads the times questions name against the time they are
// asked: relative to it, to a date the question gives, or a date alone.
func TestTimeCues(t *testing.T) {
	now := time.Date(2023, 3, 11, 5, 28, 0, 0, time.UTC)
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		question string
		// within must fall inside a span, outside inside none.
		within, outside []time.Time
	}{
		{"I mentioned visiting a museum two months ago. Did I go with a friend?",
			[]time.Time{d(2023, 1, 11)}, []time.Time{d(2022, 11, 11), d(2023, 3, 1)}},
		{"What was the airline I flew with on Valentine's day?",
			[]time.Time{d(2023, 2, 14)}, []time.Time{d(2023, 2, 24), d(2022, 2, 14)}},
		{"Which did I take care of first in February, the bike or the car?",
			[]time.Time{d(2023, 2, 1), d(2023, 2, 28)}, []time.Time{d(2023, 1, 15), d(2022, 2, 10)}},
		{"Which platform did I gain the most followers on over the past month?",
			[]time.Time{d(2023, 2, 15), d(2023, 3, 10)}, []time.Time{d(2023, 1, 1)}},
		{"What did I spend on luxury items in the past few months?",
			[]time.Time{d(2022, 12, 20)}, []time.Time{d(2022, 10, 1)}},
		{"What setback did Melanie face in October 2022?",
			[]time.Time{d(2022, 10, 20)}, []time.Time{d(2022, 12, 1), d(2023, 10, 20)}},
		{"What did Gina find for her store on 1 February, 2023?",
			[]time.Time{d(2023, 2, 1)}, []time.Time{d(2023, 2, 10)}},
		{"What painting did Melanie show on October 13?",
			[]time.Time{d(2022, 10, 13)}, []time.Time{d(2022, 10, 20)}},
		// Counted from the date given, which is also when it was said.
		{"What is the name of the puppy she got two weeks before August 11, 2022?",
			[]time.Time{d(2022, 7, 28), d(2022, 8, 11)}, []time.Time{d(2023, 2, 25), d(2022, 6, 1)}},
		{"What did Maria do last weekend before April 10, 2022?",
			[]time.Time{d(2022, 4, 9)}, []time.Time{d(2023, 3, 5)}},
		{"How many days did I spend camping this year?",
			[]time.Time{d(2023, 1, 5)}, []time.Time{d(2022, 6, 1)}},
		{"What did I buy the week before Christmas?",
			[]time.Time{d(2022, 12, 18), d(2022, 12, 25)}, []time.Time{d(2022, 11, 25), d(2023, 1, 10)}},
		{"What did I do on New Year’s Eve?",
			[]time.Time{d(2022, 12, 31)}, []time.Time{d(2022, 12, 20)}},
		{"What did I read in the previous three months?",
			[]time.Time{d(2022, 12, 20)}, []time.Time{d(2022, 11, 1)}},
		{"What did we do the last week of July?",
			[]time.Time{d(2022, 7, 25)}, []time.Time{d(2023, 3, 8)}},
		{"What did I buy a couple weeks ago?",
			[]time.Time{d(2023, 2, 25)}, []time.Time{d(2023, 1, 25)}},
		{"What did we eat at Thanksgiving?",
			[]time.Time{d(2022, 11, 24)}, []time.Time{d(2022, 11, 10)}},
	} {
		if !namesTime(c.question) {
			t.Errorf("%q: namesTime says it names no time", c.question)
		}
		spans := timeCues(c.question, now)
		in := func(at time.Time) bool {
			for _, s := range spans {
				if !at.Before(s.from) && at.Before(s.to) {
					return true
				}
			}
			return false
		}
		for _, at := range c.within {
			if !in(at) {
				t.Errorf("%q: %s is in no span of %v", c.question, at.Format(time.DateOnly), spans)
			}
		}
		for _, at := range c.outside {
			if in(at) {
				t.Errorf("%q: %s is in a span of %v", c.question, at.Format(time.DateOnly), spans)
			}
		}
	}
	// No time named: a modal "may", a count of days asked for, a plan for
	// tonight, a duration.
	for _, q := range []string{
		"May I ask what you think?",
		"How many days ago did I go rafting?",
		"I've got some free time tonight, any documentary recommendations?",
		"How many shirts did I pack for my 5-day trip?",
		"What did we talk about before the move?",
		"What was the last day of the conference like?",
		"What did I buy two weeks earlier than the concert?",
		"What did Caroline think of Jan?",
	} {
		if spans := timeCues(q, now); len(spans) > 0 {
			t.Errorf("%q names no time, read as %v", q, spans)
		}

	}
	if spans := timeCues("What did I do two days ago?", time.Time{}); len(spans) > 0 {
		t.Errorf("a question asked at no known time read as %v", spans)
	}
}
