package eval

import (
	"math"
	"testing"
)

// cvRows makes one fold's rows: a category "a" holding every question,
// and overall, with the engine's evidence recall ev.
func cvRows(questions int, ev float64) []Row {
	row := func(g string) Row {
		return Row{Group: g, Questions: questions, Evidence: questions,
			Systems: map[string]map[string]float64{SystemDelta: {MetricEvidence: ev}, SystemBM25: {MetricEvidence: 0.5}}}
	}
	return []Row{row("a"), row(Overall)}
}

// TestCrossValidateChoosesOnTheOtherFolds: each fold is reported with the
// candidate that did best on the other folds, weighted by their
// questions, not with the one that did best on itself; the pooled rows
// weigh each fold by its questions.
func TestCrossValidateChoosesOnTheOtherFolds(t *testing.T) {
	// Candidate 0 is best on fold 2 only; candidate 1 on folds 0 and 1.
	rows := [][][]Row{
		{cvRows(10, 0.6), cvRows(10, 0.6), cvRows(30, 0.9)},
		{cvRows(10, 0.8), cvRows(10, 0.8), cvRows(30, 0.7)},
	}
	cv := crossValidate(rows, []string{"f0", "f1", "f2"}, MetricEvidence, []string{"a"})
	// Fold 0: others are f1 (10 q) and f2 (30 q): candidate 0 has
	// (0.6*10+0.9*30)/40 = 0.825, candidate 1 (0.8*10+0.7*30)/40 = 0.725.
	// Fold 2: others are f0 and f1: candidate 1 (0.8) beats 0 (0.6).
	want := []struct {
		chosen string
		test   float64
	}{{Candidates[0].Name, 0.6}, {Candidates[0].Name, 0.6}, {Candidates[1].Name, 0.7}}
	for i, w := range want {
		f := cv.Folds[i]
		if f.Chosen != w.chosen || math.Abs(f.Test-w.test) > 1e-9 || f.Questions != rows[0][i][1].Questions {
			t.Errorf("fold %d: chose %q (held out %.3f, %d questions), want %q (%.3f)", i, f.Chosen, f.Test, f.Questions, w.chosen, w.test)
		}
	}
	all := overallRow(cv.Rows)
	if all == nil || all.Questions != 50 {
		t.Fatalf("pooled overall row: %+v", all)
	}
	if got, want := all.Systems[SystemDelta][MetricEvidence], (0.6*10+0.6*10+0.7*30)/50; math.Abs(got-want) > 1e-9 {
		t.Errorf("pooled evidence %.4f, want %.4f", got, want)
	}
	if got := all.Systems[SystemBM25][MetricEvidence]; math.Abs(got-0.5) > 1e-9 {
		t.Errorf("pooled baseline %.4f, want 0.5", got)
	}
}
