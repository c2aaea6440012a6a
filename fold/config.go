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
	// StaticCap is the most of the budget Static may take when the system
	// prompt and task need more than its share. Static then takes what it
	// needs up to the cap, and the other shares shrink in proportion
	// (Config.WithStatic); past the cap the system prompt, then the task,
	// is cut.
	StaticCap float64
}

// DefaultShares are DESIGN.md's partition shares, with Static allowed up
// to 40% of the budget when the system prompt and task need it.
var DefaultShares = Shares{Static: 0.10, LongTerm: 0.20, ShortTerm: 0.20, Working: 0.30, Retrieved: 0.10, Dynamic: 0.10, StaticCap: 0.40}

// Config holds every threshold of folding. The zero value is not valid;
// start from DefaultConfig.
type Config struct {
	// Budget is the window's size in tokens.
	Budget int
	Shares Shares

	// Pressure: above High, fold the oldest working iterations until usage
	// is at most Low; above Urgent, fold at once and coarsest first. Usage
	// is the window as it would render if nothing more were folded, over
	// the room the budget leaves (Room): High 1 folds only when the window
	// no longer fits.
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
	// its head and tail. 0, the default, scales it with the budget
	// (OutputCap).
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
		PressureHigh: 1, PressureLow: 0.6, PressureUrgent: 1.25,
		IntervalCalm: 50, IntervalBusy: 20, IntervalPressed: 5, IntervalBusyAt: 0.5,
		KeepRecent: 5, Chunk: 10, PinnedCap: 4,
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
	if s.StaticCap < 0 || s.StaticCap > 0.9 {
		errs = append(errs, fmt.Errorf("static cap %.2f is outside 0..0.9", s.StaticCap))
	}
	if !(0 < c.PressureLow && c.PressureLow < c.PressureHigh && c.PressureHigh <= 1 && c.PressureHigh <= c.PressureUrgent && c.PressureUrgent <= 4) {
		errs = append(errs, fmt.Errorf("pressure thresholds must satisfy 0 < low (%.2f) < high (%.2f) <= 1, high <= urgent (%.2f) <= 4", c.PressureLow, c.PressureHigh, c.PressureUrgent))
	}
	if c.IntervalCalm < 1 || c.IntervalBusy < 1 || c.IntervalPressed < 1 {
		errs = append(errs, errors.New("fold intervals must be at least 1 iteration"))
	}
	if c.KeepRecent < 1 || c.Chunk < 1 || c.PinnedCap < 0 || c.MaxOutputTokens != 0 && c.MaxOutputTokens < 50 {
		errs = append(errs, errors.New("keep-recent and chunk must be >= 1, pinned cap >= 0, max output tokens 0 (scaled with the budget) or >= 50"))
	}
	return errors.Join(errs...)
}

// Margin is held back from the budget: the token counts of a window's
// parts can add up to slightly less than the count of the whole.
func Margin(budget int) int { return max(16, budget/100) }

// Room is the budget less its Margin: what a window may fill.
func (c Config) Room() int { return c.Budget - Margin(c.Budget) }

// WithStatic returns the configuration a window whose Static partition
// needs need tokens is laid out with. Static takes what it needs, at least
// its share and at most StaticCap of the budget; when that is more than its
// share, every other share shrinks in the same proportion, so that the
// partitions still add up to what they did. The scheduler and the window
// both lay out with it, so pressure is measured on the window rendered.
func (c Config) WithStatic(need int) Config {
	s := c.Shares
	want := min(float64(need)/float64(c.Budget), max(s.StaticCap, s.Static))
	if want <= s.Static || s.Static >= 1 {
		return c
	}
	k := (1 - want) / (1 - s.Static)
	c.Shares = Shares{Static: want, LongTerm: s.LongTerm * k, ShortTerm: s.ShortTerm * k, Working: s.Working * k,
		Retrieved: s.Retrieved * k, Dynamic: s.Dynamic * k, StaticCap: s.StaticCap}
	return c
}

// OutputCap is the size from which an L0 tool output shows only its head
// and tail: MaxOutputTokens when set, else a quarter of the budget (at
// least 200 tokens), so that one output never takes more of the window
// than a quarter, and a large window shows large outputs whole.
func (c Config) OutputCap() int {
	if c.MaxOutputTokens > 0 {
		return c.MaxOutputTokens
	}
	return max(200, c.Budget/4)
}

// share returns a partition's budget in tokens.
func (c Config) share(f float64) int { return int(f * float64(c.Budget)) }

// StaticBudget is the Static partition's share of the budget, in tokens.
func (c Config) StaticBudget() int { return c.share(c.Shares.Static) }

// LongTermBudget is the Long-term partition's share, in tokens.
func (c Config) LongTermBudget() int { return c.share(c.Shares.LongTerm) }

// ShortTermBudget is the Short-term partition's share, in tokens.
func (c Config) ShortTermBudget() int { return c.share(c.Shares.ShortTerm) }

// WorkingBudget is the Working partition's share, in tokens.
func (c Config) WorkingBudget() int { return c.share(c.Shares.Working) }

// RetrievedBudget is the Retrieved partition's share, in tokens.
func (c Config) RetrievedBudget() int { return c.share(c.Shares.Retrieved) }

// RecallReach is the most the recalls of a window not focused on a
// question take: twice the Retrieved share or a quarter of the budget,
// whichever is more, so that a revisited step can show whole. The window
// lays them out in the run's timeline, in what Working's iterations leave;
// the scheduler holds RecallHold for them.
func (c Config) RecallReach() int { return max(2*c.RetrievedBudget(), c.Budget/4) }

// RecallHold is the room held for the recalls of a window not focused on
// a question: the Retrieved share, or, in a run whose steps call tools
// (acts), half the reach when that is more, so that the output of the step
// a revisit returns to has room to show whole between folds. A
// conversation calls no tool: its recalls come from questions to memory,
// whose window is focused, and holding more for it would only fold it
// sooner.
func (c Config) RecallHold(acts bool) int {
	if acts {
		return max(c.RetrievedBudget(), c.RecallReach()/2)
	}
	return c.RetrievedBudget()
}

// DynamicBudget is the Dynamic partition's share, in tokens.
func (c Config) DynamicBudget() int { return c.share(c.Shares.Dynamic) }
