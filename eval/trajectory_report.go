package eval

import (
	"bufio"
	"fmt"
	"io"
)

// WriteText prints the report as a table: for each budget and system, the
// probes held, the revisit rate, the mean window tokens and the rate by
// distance; then the probes by distance, the transcripts left out and the
// cross-validation's held-out figures.
func (r *TrajectoryReport) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	b.WriteString("Trajectory revisits: ")
	if r.Path != "" {
		fmt.Fprintf(b, "%s, ", r.Path)
	}
	fmt.Fprintf(b, "%d runs, %d steps, %d probes", r.Runs, r.Steps, r.Probes)
	if r.Skipped > 0 {
		fmt.Fprintf(b, " (%d more left out: no evidence term)", r.Skipped)
	}
	fmt.Fprintf(b, "\n(a probe is a step whose tool call names a target an earlier step's call named; it is held when\n")
	fmt.Fprintf(b, "at least half of that step's evidence terms are in the window outside Static, built at the call)\n\n")
	writeTrajectoryRows(b, r.ByBudget, TrajectorySystems, "")
	fmt.Fprintf(b, "%-6s %-12s %6s %6s %6s %6s", "", "probes", "", "", "", "")
	for _, d := range DistanceBuckets {
		fmt.Fprintf(b, " %6d", r.ProbesByDistance[d])
	}
	b.WriteString("\n\n")
	if n := len(r.WithoutToolCalls); n > 0 {
		fmt.Fprintf(b, "transcripts left out, no tool call: %d (%s)\n", n, clipList(r.WithoutToolCalls, 5))
	}
	if cv := r.CrossValidation; cv != nil {
		fmt.Fprintf(b, "\ncross-validated, held out: each part of the runs with the setting that did best on the others (chosen by %s)\n", cv.Choose)
		for _, f := range cv.Folds {
			fmt.Fprintf(b, "  %s, %d probes: %s (others %.3f, held out %.3f)\n", f.Held, f.Probes, f.Chosen, f.Train, f.Test)
		}
		b.WriteByte('\n')
		writeTrajectoryRows(b, cv.ByBudget, []string{SystemDelta}, " (cv)")
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "took %s\n", seconds(r.Seconds))
	return b.Flush()
}

// writeTrajectoryRows prints one line per budget and system; suffix marks
// the system's name.
func writeTrajectoryRows(b *bufio.Writer, rows []BudgetRevisit, systems []string, suffix string) {
	fmt.Fprintf(b, "%-6s %-12s %6s %6s %6s %6s", "budget", "system", "held", "probes", "rate", "tokens")
	for _, d := range DistanceBuckets {
		fmt.Fprintf(b, " %6s", d)
	}
	b.WriteByte('\n')
	for _, row := range rows {
		for i, sys := range systems {
			budget := ""
			if i == 0 {
				budget = fmt.Sprint(row.Budget)
			}
			s := row.Systems[sys]
			fmt.Fprintf(b, "%6s %-12s %6d %6d %6.3f %6.0f", budget, sys+suffix, s.Held, s.Probes, s.Rate, s.MeanTokens)
			for _, d := range DistanceBuckets {
				if r := s.ByDistance[d]; r.Probes > 0 {
					fmt.Fprintf(b, " %6.3f", r.Rate)
				} else {
					fmt.Fprintf(b, " %6s", "-")
				}
			}
			b.WriteByte('\n')
		}
	}
}
