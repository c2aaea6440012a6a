package scoring

import (
	"math"
	"testing"
)

// near reports whether a and b agree to 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestImportance(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		w    Weights
		f    Factors
		want float64
	}{
		{"all zero", DefaultWeights, Factors{}, 0},
		{"all one", DefaultWeights, Factors{1, 1, 1, 1}, 1},
		{"default weights dot product", DefaultWeights, Factors{Recency: 0.5, Access: 1, Error: 0, StateChange: 1}, 0.3*0.5 + 0.3 + 0.2},
		{"only error", DefaultWeights, Factors{Error: 1}, 0.2},
		{"factors clamped above", DefaultWeights, Factors{Recency: 5, Access: 2}, 0.6},
		{"factors clamped below", DefaultWeights, Factors{Recency: -3, Access: 1}, 0.3},
		{"NaN factor is zero", DefaultWeights, Factors{Recency: nan, Access: 1}, 0.3},
		{"weights under one not rescaled", Weights{Recency: 0.5}, Factors{Recency: 1, Access: 1}, 0.5},
		{"weights over one divided by sum", Weights{1, 1, 1, 1}, Factors{Recency: 1, Access: 0.5}, 1.5 / 4},
		{"weights over one, all one", Weights{2, 3, 0, 0}, Factors{1, 1, 1, 1}, 1},
		{"negative weight ignored", Weights{Recency: -1, Access: 0.5}, Factors{Recency: 1, Access: 1}, 0.5},
		{"NaN and Inf weights ignored", Weights{Recency: nan, Access: math.Inf(1), Error: 0.4}, Factors{1, 1, 1, 0}, 0.4},
		{"zero weights", Weights{}, Factors{1, 1, 1, 1}, 0},
	}
	for _, tt := range tests {
		if got := Importance(tt.w, tt.f); !near(got, tt.want) {
			t.Errorf("%s: Importance(%+v, %+v) = %v, want %v", tt.name, tt.w, tt.f, got, tt.want)
		}
	}
}

func TestDefaultWeights(t *testing.T) {
	t.Parallel()
	w := DefaultWeights
	if w.Recency != 0.3 || w.Access != 0.3 || w.Error != 0.2 || w.StateChange != 0.2 {
		t.Errorf("DefaultWeights = %+v, want {0.3 0.3 0.2 0.2}", w)
	}
}

func TestRecency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		age, halfLife int
		want          float64
	}{
		{0, 10, 1},
		{10, 10, 0.5},
		{20, 10, 0.25},
		{5, 10, math.Sqrt(0.5)},
		{1, 1, 0.5},
		{-3, 10, 1},
		{0, 0, 0},
		{5, 0, 0},
		{5, -1, 0},
		{1000, 1, 0}, // underflows to 0, never negative
	}
	for _, tt := range tests {
		if got := Recency(tt.age, tt.halfLife); !near(got, tt.want) {
			t.Errorf("Recency(%d, %d) = %v, want %v", tt.age, tt.halfLife, got, tt.want)
		}
	}
	// Monotone: older is never more recent.
	for age := 1; age < 50; age++ {
		if Recency(age, 7) >= Recency(age-1, 7) {
			t.Fatalf("Recency(%d, 7) >= Recency(%d, 7)", age, age-1)
		}
	}
}

func TestAccessFactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		count int
		want  float64
	}{
		{0, 0},
		{1, 0.5},
		{3, 0.75},
		{9, 0.9},
		{-2, 0},
	}
	for _, tt := range tests {
		if got := AccessFactor(tt.count); !near(got, tt.want) {
			t.Errorf("AccessFactor(%d) = %v, want %v", tt.count, got, tt.want)
		}
	}
	if got := AccessFactor(math.MaxInt32); got >= 1 || got < 0.999 {
		t.Errorf("AccessFactor(MaxInt32) = %v, want just under 1", got)
	}
}
