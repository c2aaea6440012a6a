package recall

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Time cues. A question may name when what it asks about happened: "two
// months ago", "last weekend", "over the past month", "in August 2023",
// "on 7 July, 2023", "on Valentine's day". The journal knows when each
// turn was said, so such a question is also searched among the turns of
// that time, and the two rankings are fused (dates.go). Times are read as
// a person says them, loosely: each span has slack on both sides, in
// proportion to the unit named.

// span is a stretch of time a question names, from inclusive, to
// exclusive.
type span struct {
	from, to time.Time
}

const day = 24 * time.Hour

// numberWords are the counts a question may spell out.
var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}

// months maps month names and their short forms to months.
var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		months[name] = m
		if m != time.May {
			months[name[:3]] = m
		}
	}
	months["sept"] = time.September
}

const (
	numberRE = `(\d{1,3}|a couple of|a couple|couple of|a few|few|several|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`
	unitRE   = `(day|week|weekend|month|year)s?`
	// monthNameRE is the full names alone: a short one after "of" or "in"
	// is as likely a name ("think of Jan").
	monthNameRE = `(january|february|march|april|may|june|july|august|september|october|november|december)`
	monthRE     = `(january|february|march|april|may|june|july|august|september|sept|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)`
	yearRE      = `((?:19|20)\d\d)`
	ordRE       = `(\d{1,2})(?:st|nd|rd|th)?`
)

var (
	// "7 July, 2023", "7th of July 2023", "July 7, 2023", "July 7th".
	reDayMonth = regexp.MustCompile(`\b` + ordRE + `\s+(?:of\s+)?` + monthRE + `\b(?:,?\s+` + yearRE + `\b)?`)
	reMonthDay = regexp.MustCompile(`\b` + monthRE + `\s+` + ordRE + `\b(?:,?\s+` + yearRE + `\b)?`)
	// "August 2023"; a month alone only after a word that makes it one
	// ("in May", not "may I").
	reMonthYear = regexp.MustCompile(`\b` + monthRE + `,?\s+` + yearRE + `\b`)
	reInMonth   = regexp.MustCompile(`\b(?:in|during|since|until|of|early|late|mid|around|throughout|through|last|this)\s+(?:the\s+month\s+of\s+)?` + monthNameRE + `\b`)
	reYear      = regexp.MustCompile(`\b(?:in|during|of|since|throughout|year)\s+` + yearRE + `\b`)
	// "two months ago", "3 weeks before August 11, 2023", "the week before".
	reAgo = regexp.MustCompile(`\b(?:` + numberRE + `|the)\s+` + unitRE + `\s+(ago|earlier|before|prior to)\b`)
	// "last weekend", "past few months", "the last 3 days", "this year".
	reLast = regexp.MustCompile(`\b(last|past|previous|this)\s+(?:` + numberRE + `\s+)?` + unitRE + `\b`)
	// Not "today" nor "tonight": a question about them asks what to do
	// next, not what was said then.
	reYesterday = regexp.MustCompile(`\byesterday\b`)
	// Fixed-date holidays and Thanksgiving.
	reHoliday = regexp.MustCompile(`\b(valentine'?s?(?:\s+day)?|christmas eve|christmas(?:\s+day)?|new year'?s eve|new year'?s(?:\s+day)?|halloween|independence day|fourth of july|thanksgiving)\b`)
)

// timeCues returns the spans of time question names, read against now
// (the time the question is asked). Dates with no year are the latest such
// date not after now. It returns none for a question that names no time.
func timeCues(question string, now time.Time) []span {
	if now.IsZero() {
		return nil
	}
	q := normalQuestion(question)
	loc := now.Location()
	var out []span
	// Absolute dates first: "before <date>" reads a relative cue from
	// that date rather than from now.
	type dated struct {
		at, end int
		s       span
		// on is the date named, where a relative cue before it counts
		// from.
		on time.Time
	}
	var dates []dated
	taken := func(at int) bool {
		for _, d := range dates {
			if at >= d.at && at < d.end {
				return true
			}
		}
		return false
	}
	addDay := func(at, end int, y int, m time.Month, d int) {
		if d < 1 || d > 31 {
			return
		}
		t := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if y == 0 {
			t = latest(now, func(y int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, loc) })
		}
		// The day, and the day after: a person tells of a day that evening
		// or the next.
		dates = append(dates, dated{at, end, span{t.Add(-day), t.Add(3 * day)}, t})
	}
	for _, m := range reDayMonth.FindAllStringSubmatchIndex(q, -1) {
		d, _ := strconv.Atoi(q[m[2]:m[3]])
		addDay(m[0], m[1], yearAt(q, m, 6), months[q[m[4]:m[5]]], d)
	}
	for _, m := range reMonthDay.FindAllStringSubmatchIndex(q, -1) {
		if taken(m[0]) {
			continue
		}
		d, _ := strconv.Atoi(q[m[4]:m[5]])
		addDay(m[0], m[1], yearAt(q, m, 6), months[q[m[2]:m[3]]], d)
	}
	addMonth := func(at, end, y int, m time.Month) {
		t := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		if y == 0 {
			t = latest(now, func(y int) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, loc) })
		}
		dates = append(dates, dated{at, end, span{t.Add(-3 * day), t.AddDate(0, 1, 3)}, t})
	}
	for _, m := range reMonthYear.FindAllStringSubmatchIndex(q, -1) {
		if taken(m[0]) {
			continue
		}
		y, _ := strconv.Atoi(q[m[4]:m[5]])
		addMonth(m[0], m[1], y, months[q[m[2]:m[3]]])
	}
	for _, m := range reInMonth.FindAllStringSubmatchIndex(q, -1) {
		if taken(m[2]) {
			continue
		}
		addMonth(m[2], m[1], 0, months[q[m[2]:m[3]]])
	}
	for _, m := range reYear.FindAllStringSubmatchIndex(q, -1) {
		if taken(m[2]) {
			continue
		}
		y, _ := strconv.Atoi(q[m[2]:m[3]])
		t := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		dates = append(dates, dated{m[2], m[1], span{t.Add(-7 * day), t.AddDate(1, 0, 7)}, t})
	}
	for _, m := range reHoliday.FindAllStringSubmatchIndex(q, -1) {
		t := latest(now, holiday(q[m[2]:m[3]], loc))
		dates = append(dates, dated{m[0], m[1], span{t.Add(-3 * day), t.Add(4 * day)}, t})
	}
	// anchor is the date a relative cue ending at end counts from: one
	// that follows it ("two weeks before August 11"), else now.
	anchor := func(end int) (time.Time, bool) {
		for _, d := range dates {
			if d.at < end {
				continue
			}
			switch strings.Trim(q[end:d.at], " ,") {
			case "", "the", "on", "before", "before the", "prior to", "as of":
				return d.on, true
			}
		}
		return now, false
	}
	for _, m := range reAgo.FindAllStringSubmatchIndex(q, -1) {
		n := 1
		if m[2] >= 0 {
			n = count(q[m[2]:m[3]])
		}
		unit := q[m[4]:m[5]]
		from, anchored := now, false
		if word := q[m[6]:m[7]]; word != "ago" {
			// "Before", "prior to" and "earlier" count from a date that
			// follows; "the day before I left" names no time.
			if from, anchored = anchor(m[1]); !anchored {
				continue
			}
		}
		center := back(from, unit, n)
		slack := max(length(unit)/2, time.Duration(n)*length(unit)/4)
		s := span{center.Add(-slack), center.Add(slack)}
		if anchored {
			// Said on the day it names, of the days before it.
			s.to = from.Add(2 * day)
		}
		out = append(out, s)
	}
	for _, m := range reLast.FindAllStringSubmatchIndex(q, -1) {
		which, unit := q[m[2]:m[3]], q[m[6]:m[7]]
		from, _ := anchor(m[1])
		n := 1
		if m[4] >= 0 {
			n = count(q[m[4]:m[5]])
		}
		end := from.Add(2 * day)
		if unit == "day" && m[4] < 0 || strings.HasPrefix(q[m[1]:], " of ") {
			continue // "the last day", "the last week of July": not counted from now
		}
		switch {
		case which == "this":
			out = append(out, span{startOf(from, unit).Add(-day), end})
		case m[4] < 0 && (which == "last" || which == "previous"):
			// The unit before this one: last year is the calendar year
			// before this one, last week the seven days before this week.
			out = append(out, span{startOf(back(from, unit, 1), unit).Add(-day), end})
		default:
			out = append(out, span{back(from, unit, n).Add(-length(unit) / 4), end})
		}
	}
	for range reYesterday.FindAllStringIndex(q, -1) {
		d := startOf(now, "day").Add(-day)
		out = append(out, span{d.Add(-day / 2), now.Add(day)})
	}
	for _, d := range dates {
		out = append(out, d.s)
	}
	return out
}

// cueREs are the expressions of a time a question may hold.
var cueREs = []*regexp.Regexp{reDayMonth, reMonthDay, reMonthYear, reInMonth, reYear, reAgo, reLast, reYesterday, reHoliday}

// namesTime reports whether question may name a time (timeCues): when it
// does not, the time it is asked need not be read.
func namesTime(question string) bool {
	q := normalQuestion(question)
	for _, re := range cueREs {
		if re.MatchString(q) {
			return true
		}
	}
	return false
}

// normalQuestion lower-cases a question and straightens its quotes.
func normalQuestion(question string) string {
	return strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(question))
}

// count reads a number a question gives in words or digits.
func count(s string) int {
	if n, ok := numberWords[s]; ok {
		return n
	}
	n, _ := strconv.Atoi(s)
	return max(n, 1)
}

// yearAt reads the year of a date match m whose year group starts at m[g],
// 0 when the date gave none.
func yearAt(q string, m []int, g int) int {
	if len(m) <= g+1 || m[g] < 0 {
		return 0
	}
	y, _ := strconv.Atoi(q[m[g]:m[g+1]])
	return y
}

// latest returns the latest of the dates in(year) that is not after now
// by more than a day.
func latest(now time.Time, in func(year int) time.Time) time.Time {
	t := in(now.Year())
	if t.After(now.Add(day)) {
		t = in(now.Year() - 1)
	}
	return t
}

// holiday returns the date of a named holiday in a year.
func holiday(name string, loc *time.Location) func(int) time.Time {
	on := func(m time.Month, d int) func(int) time.Time {
		return func(y int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, loc) }
	}
	switch {
	case strings.HasPrefix(name, "valentine"):
		return on(time.February, 14)
	case name == "christmas eve":
		return on(time.December, 24)
	case strings.HasPrefix(name, "christmas"):
		return on(time.December, 25)
	case strings.HasSuffix(name, "eve"): // new year's eve
		return on(time.December, 31)
	case strings.HasPrefix(name, "new year"):
		return on(time.January, 1)
	case name == "halloween":
		return on(time.October, 31)
	case name == "thanksgiving":
		// The fourth Thursday of November.
		return func(y int) time.Time {
			first := time.Date(y, time.November, 1, 0, 0, 0, 0, loc)
			return first.AddDate(0, 0, (int(time.Thursday)-int(first.Weekday())+7)%7+21)
		}
	}
	return on(time.July, 4) // independence day, the fourth of july
}

// length is a unit's rough length.
func length(unit string) time.Duration {
	switch unit {
	case "week", "weekend":
		return 7 * day
	case "month":
		return 30 * day
	case "year":
		return 365 * day
	}
	return day
}

// back returns t moved n units into the past.
func back(t time.Time, unit string, n int) time.Time {
	switch unit {
	case "week", "weekend":
		return t.AddDate(0, 0, -7*n)
	case "month":
		return t.AddDate(0, -n, 0)
	case "year":
		return t.AddDate(-n, 0, 0)
	}
	return t.AddDate(0, 0, -n)
}

// startOf returns the start of the unit (a calendar day, week from
// Monday, month or year) that holds t.
func startOf(t time.Time, unit string) time.Time {
	y, m, d := t.Date()
	switch unit {
	case "week", "weekend":
		return time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, t.Location())
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, t.Location())
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, t.Location())
	}
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
