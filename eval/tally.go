package eval

// Metric names, as reported.
const (
	MetricEvidence = "evidence_recall"
	MetricTokens   = "context_tokens"
	MetricSessR5   = "session_recall_all@5"
	MetricSessR10  = "session_recall_all@10"
	MetricSessN5   = "session_ndcg_any@5"
	MetricTurnR10  = "turn_recall_any@10"
)

// Row holds the figures of one group of questions (a category, a question
// type, or all of them): for each system, the mean of each metric over the
// group's questions.
type Row struct {
	Group     string `json:"group"`
	Questions int    `json:"questions"`
	// Evidence counts the evidence turns of the group's questions.
	Evidence int                           `json:"evidence_turns"`
	Systems  map[string]map[string]float64 `json:"systems"`
}

// Overall is the group of all questions.
const Overall = "overall"

// tally sums per-question figures into rows.
type tally struct {
	order []string
	rows  map[string]*Row
}

// scored is one question's figures: system → metric → value.
type scored map[string]map[string]float64

// add counts a question in its group and in the overall row.
func (t *tally) add(group string, evidence int, s scored) {
	if t.rows == nil {
		t.rows = map[string]*Row{}
	}
	for _, g := range []string{group, Overall} {
		r := t.rows[g]
		if r == nil {
			r = &Row{Group: g, Systems: map[string]map[string]float64{}}
			t.rows[g] = r
			t.order = append(t.order, g)
		}
		r.Questions++
		r.Evidence += evidence
		for sys, ms := range s {
			if r.Systems[sys] == nil {
				r.Systems[sys] = map[string]float64{}
			}
			for m, v := range ms {
				r.Systems[sys][m] += v
			}
		}
	}
}

// result returns the rows in the order of groups, then the groups not
// named there in the order met, with overall last; sums become means.
func (t *tally) result(groups []string) []Row {
	var out []Row
	take := func(g string) {
		r := t.rows[g]
		if r == nil {
			return
		}
		for _, ms := range r.Systems {
			for m := range ms {
				ms[m] /= float64(r.Questions)
			}
		}
		out = append(out, *r)
		delete(t.rows, g)
	}
	for _, g := range groups {
		if g != Overall {
			take(g)
		}
	}
	for _, g := range t.order {
		if g != Overall {
			take(g)
		}
	}
	take(Overall)
	return out
}

// addRow counts a row of means (a group of one fold) into t, as the
// questions it sums.
func (t *tally) addRow(r Row) {
	if t.rows == nil {
		t.rows = map[string]*Row{}
	}
	for _, g := range []string{r.Group, Overall} {
		p := t.rows[g]
		if p == nil {
			p = &Row{Group: g, Systems: map[string]map[string]float64{}}
			t.rows[g] = p
			t.order = append(t.order, g)
		}
		p.Questions += r.Questions
		p.Evidence += r.Evidence
		for sys, ms := range r.Systems {
			if p.Systems[sys] == nil {
				p.Systems[sys] = map[string]float64{}
			}
			for m, v := range ms {
				p.Systems[sys][m] += v * float64(r.Questions)
			}
		}
	}
}
