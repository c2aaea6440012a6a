package scoring

import "math"

// Weights weighs the factors of Importance. They need not sum to 1.
type Weights struct {
	// Recency weighs how recent an item is.
	Recency float64
	// Access weighs how often an item was recalled.
	Access float64
	// Error weighs whether an item records an error.
	Error float64
	// StateChange weighs whether an item changed the environment.
	StateChange float64
}

// DefaultWeights favours recency and access, then errors and state changes.
var DefaultWeights = Weights{Recency: 0.3, Access: 0.3, Error: 0.2, StateChange: 0.2}

// Factors are the inputs of Importance, each in [0,1]; Importance clamps
// values outside that range.
type Factors struct {
	// Recency is how recent an item is, typically from [Recency].
	Recency float64
	// Access is how often it was recalled, typically from [AccessFactor].
	Access float64
	// Error is 1 when the item records an error, else 0 (or a degree).
	Error float64
	// StateChange is 1 when the item changed the environment, else 0.
	StateChange float64
}

// Importance returns w·f, the weighted sum of the factors, in [0,1].
//
// Each factor is clamped to [0,1] first, and NaN counts as 0. Negative, NaN
// and infinite weights count as 0. Weights need not sum to 1: when they sum to more
// than 1 the result is divided by the sum, so it stays a weighted mean; when
// they sum to less, the result is simply smaller. The result is clamped to
// [0,1].
func Importance(w Weights, f Factors) float64 {
	ws := [4]float64{weight(w.Recency), weight(w.Access), weight(w.Error), weight(w.StateChange)}
	fs := [4]float64{unit(f.Recency), unit(f.Access), unit(f.Error), unit(f.StateChange)}
	var sum, dot float64
	for i := range ws {
		sum += ws[i]
		dot += ws[i] * fs[i]
	}
	if sum > 1 {
		dot /= sum
	}
	return unit(dot)
}

// weight returns a usable weight: negative, NaN and infinite ones count as 0.
func weight(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return 0
	}
	return x
}

// unit clamps x to [0,1], mapping NaN to 0.
func unit(x float64) float64 {
	switch {
	case !(x > 0):
		return 0
	case x > 1:
		return 1
	}
	return x
}

// Recency maps an age in iterations to [0,1] by exponential decay: 1 at age
// 0, 0.5 at age == halfLife, 0.25 at twice that, i.e. exp(-age/halfLife·ln 2).
// Negative ages count as 0. halfLife <= 0 gives 0 for every age.
func Recency(age, halfLife int) float64 {
	if halfLife <= 0 {
		return 0
	}
	if age <= 0 {
		return 1
	}
	return math.Exp(-float64(age) / float64(halfLife) * math.Ln2)
}

// AccessFactor maps an access count to [0,1) with diminishing returns:
// 1 - 1/(1+count), so 0 accesses give 0, one gives 0.5, three give 0.75.
// Negative counts count as 0.
func AccessFactor(count int) float64 {
	if count <= 0 {
		return 0
	}
	return 1 - 1/(1+float64(count))
}
