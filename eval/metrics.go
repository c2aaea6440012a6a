package eval

import (
	"math"
	"slices"
)

// Dedup returns ids without repeats, in order of first appearance: a ranked
// list of sessions from a ranked list of turns.
func Dedup(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// RecallAll is 1 when every relevant id is in the first k of ranked, else
// 0, as in LongMemEval's scripts; 0 when nothing is relevant.
func RecallAll(ranked, relevant []string, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	top := ranked[:min(k, len(ranked))]
	for _, r := range relevant {
		if !slices.Contains(top, r) {
			return 0
		}
	}
	return 1
}

// RecallAny is 1 when some relevant id is in the first k of ranked, else 0.
func RecallAny(ranked, relevant []string, k int) float64 {
	top := ranked[:min(k, len(ranked))]
	for _, r := range relevant {
		if slices.Contains(top, r) {
			return 1
		}
	}
	return 0
}

// NDCGAny is the normalized discounted cumulative gain at k with binary
// relevance (an id is relevant when it is any of relevant), computed as
// LongMemEval's scripts do: the gain at rank 1 is not discounted, and the
// gain at rank r > 1 is divided by log2(r). ranked must hold no repeats.
func NDCGAny(ranked, relevant []string, k int) float64 {
	ideal := dcg(min(len(relevant), k), func(int) bool { return true })
	if ideal == 0 {
		return 0
	}
	top := ranked[:min(k, len(ranked))]
	return dcg(len(top), func(i int) bool { return slices.Contains(relevant, top[i]) }) / ideal
}

// dcg sums the discounted gains of the first n ranks, rel saying which of
// them are relevant.
func dcg(n int, rel func(i int) bool) float64 {
	sum := 0.0
	for i := range n {
		if !rel(i) {
			continue
		}
		if i == 0 {
			sum++
			continue
		}
		sum += 1 / math.Log2(float64(i+1))
	}
	return sum
}
