package eval

// DistanceBuckets name the ranges of probe distance (how many steps back a
// probe reaches) that reports break the figures down by.
var DistanceBuckets = []string{"1", "2-3", "4-7", "8-15", "16+"}

// distanceBucket is the index in DistanceBuckets of distance d.
func distanceBucket(d int) int {
	switch {
	case d <= 1:
		return 0
	case d <= 3:
		return 1
	case d <= 7:
		return 2
	case d <= 15:
		return 3
	}
	return 4
}

// Revisit is how many probes a system held.
type Revisit struct {
	Held   int     `json:"held"`
	Probes int     `json:"probes"`
	Rate   float64 `json:"rate"`
}

// SystemRevisit is one system's figures at one budget: the probes held,
// the mean tokens of its windows, and the probes held by distance.
type SystemRevisit struct {
	Revisit
	MeanTokens float64            `json:"mean_tokens"`
	ByDistance map[string]Revisit `json:"by_distance"`
}

// BudgetRevisit is the figures of each system at one budget.
type BudgetRevisit struct {
	Budget  int                      `json:"budget"`
	Systems map[string]SystemRevisit `json:"systems"`
}

func newRevisit(held, probes int) Revisit {
	r := Revisit{Held: held, Probes: probes}
	if probes > 0 {
		r.Rate = float64(held) / float64(probes)
	}
	return r
}

// revisitCount sums outcomes into a SystemRevisit.
type revisitCount struct {
	held, probes, tokens int
	dist                 [5][2]int // held, probes
}

func (c *revisitCount) add(p Probe, o outcome) {
	c.probes++
	c.tokens += o.tokens
	b := distanceBucket(p.Distance())
	c.dist[b][1]++
	if o.held {
		c.held++
		c.dist[b][0]++
	}
}

func (c *revisitCount) result() SystemRevisit {
	r := SystemRevisit{Revisit: newRevisit(c.held, c.probes), ByDistance: map[string]Revisit{}}
	if c.probes > 0 {
		r.MeanTokens = float64(c.tokens) / float64(c.probes)
	}
	for i, name := range DistanceBuckets {
		r.ByDistance[name] = newRevisit(c.dist[i][0], c.dist[i][1])
	}
	return r
}

// tallyBudgets sums the outcomes of the runs, for each budget and each of
// systems. keep, when set, says which runs count.
func tallyBudgets(runs []*trajectory, all []runOutcomes, budgets []int, systems []string, keep func(run int) bool) []BudgetRevisit {
	out := make([]BudgetRevisit, len(budgets))
	for bi, b := range budgets {
		out[bi] = BudgetRevisit{Budget: b, Systems: map[string]SystemRevisit{}}
		for _, sys := range systems {
			var c revisitCount
			for r, tr := range runs {
				if keep != nil && !keep(r) {
					continue
				}
				for i, o := range all[r][bi][sys] {
					c.add(tr.probes[i], o)
				}
			}
			out[bi].Systems[sys] = c.result()
		}
	}
	return out
}
