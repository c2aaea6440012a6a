package fold

import (
	"errors"
	"fmt"

	"github.com/delta-memory/delta-memory/scoring"
)

// Shares divides the token budget among the window's partitions, as
// fractions of the budget. Unused share flows to Working.
type Shares struct {
	Static, LongTerm, ShortTerm, Working, Retrieved, Dynamic float64
}

// DefaultShares are DESIGN.md's partition shares.
var DefaultShares = Shares{Static: 0.10, LongTerm: 0.20, ShortTerm: 0.20, Working: 0.30, Retrieved: 0.10, Dynamic: 0.10}

// Config holds every threshold of folding. The zero value is not valid;
// start from DefaultConfig.
type Config struct {
	// Budget is the window's size in tokens.
	Budget int
	Shares Shares

	// Pressure: above High, fold the oldest working iterations until usage
	// is at most Low; above Urgent, fold at once and coarsest first.
	PressureHigh, PressureLow, PressureUrgent float64

	// Interval folds every IntervalCalm iterations while usage is under
	// IntervalBusyAt, every IntervalBusy up to PressureHigh, and every
	// IntervalPressed above it.
	IntervalCalm, IntervalBusy, IntervalPressed int
	IntervalBusyAt                              float64

	// KeepRecent is how many of the newest iterations the interval and
	// milder pressure folds leave in full.
	KeepRecent int
	// Chunk is how many iterations one L1/L2 block covers at most.
	Chunk int
	// PinnedCap is how many protected iterations one block keeps in detail.
	PinnedCap int
	// MaxOutputTokens is the size from which an L0 tool output is reduced to
	// its head and tail.
	MaxOutputTokens int

	// Weights of the importance score, and the half-life in iterations of
	// its recency term.
	Weights         scoring.Weights
	RecencyHalfLife int
}

// DefaultConfig returns DESIGN.md's defaults for a budget (32,000 tokens
// when budget <= 0).
func DefaultConfig(budget int) Config {
	if budget <= 0 {
		budget = 32000
	}
	return Config{
		Budget: budget, Shares: DefaultShares,
		PressureHigh: 0.8, PressureLow: 0.6, PressureUrgent: 0.9,
		IntervalCalm: 50, IntervalBusy: 20, IntervalPressed: 5, IntervalBusyAt: 0.5,
		KeepRecent: 5, Chunk: 10, PinnedCap: 4, MaxOutputTokens: DefaultMaxOutputTokens,
		Weights: scoring.DefaultWeights, RecencyHalfLife: 50,
	}
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	s := c.Shares
	var errs []error
	if c.Budget < 500 {
		errs = append(errs, fmt.Errorf("budget %d is too small: at least 500 tokens", c.Budget))
	}
	// A slice, not a map, so that the errors come in the same order.
	for _, sh := range []struct {
		name string
		v    float64
	}{{"static", s.Static}, {"long-term", s.LongTerm}, {"short-term", s.ShortTerm}, {"working", s.Working}, {"retrieved", s.Retrieved}, {"dynamic", s.Dynamic}} {
		if sh.v < 0 || sh.v > 1 {
			errs = append(errs, fmt.Errorf("%s share %.2f is outside 0..1", sh.name, sh.v))
		}
	}
	if sum := s.Static + s.LongTerm + s.ShortTerm + s.Working + s.Retrieved + s.Dynamic; sum > 1.0001 {
		errs = append(errs, fmt.Errorf("partition shares add up to %.2f, more than 1", sum))
	}
	if !(0 < c.PressureLow && c.PressureLow < c.PressureHigh && c.PressureHigh <= c.PressureUrgent && c.PressureUrgent <= 1) {
		errs = append(errs, fmt.Errorf("pressure thresholds must satisfy 0 < low (%.2f) < high (%.2f) <= urgent (%.2f) <= 1", c.PressureLow, c.PressureHigh, c.PressureUrgent))
	}
	if c.IntervalCalm < 1 || c.IntervalBusy < 1 || c.IntervalPressed < 1 {
		errs = append(errs, errors.New("fold intervals must be at least 1 iteration"))
	}
	if c.KeepRecent < 1 || c.Chunk < 1 || c.PinnedCap < 0 || c.MaxOutputTokens < 50 {
		errs = append(errs, errors.New("keep-recent and chunk must be >= 1, pinned cap >= 0, max output tokens >= 50"))
	}
	return errors.Join(errs...)
}

// share returns a partition's budget in tokens.
func (c Config) share(f float64) int { return int(f * float64(c.Budget)) }

// Partition budgets in tokens.
func (c Config) StaticBudget() int    { return c.share(c.Shares.Static) }
func (c Config) LongTermBudget() int  { return c.share(c.Shares.LongTerm) }
func (c Config) ShortTermBudget() int { return c.share(c.Shares.ShortTerm) }
func (c Config) WorkingBudget() int   { return c.share(c.Shares.Working) }
func (c Config) RetrievedBudget() int { return c.share(c.Shares.Retrieved) }
func (c Config) DynamicBudget() int   { return c.share(c.Shares.Dynamic) }
