package eval

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText prints the report as a table: evidence recall per category and
// overall for the engine and each baseline, then the mean context tokens
// and the bad evidence counted.
func (r *LoCoMoReport) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "LoCoMo evidence recall at %d tokens: %s, %d conversations, %d questions\n", r.Budget, r.Path, r.Conversations, r.Questions)
	fmt.Fprintf(b, "(share of each question's evidence turns whose text is in the context, averaged over questions)\n\n")
	writeLoCoMoRows(b, r.Rows)
	if all := r.overall(); all != nil {
		fmt.Fprintf(b, "%-34s", "mean context tokens")
		for _, s := range Systems {
			fmt.Fprintf(b, " %10.0f", all.Systems[s][MetricTokens])
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if r.NoEvidence > 0 {
		fmt.Fprintf(b, "questions left out, no evidence naming a turn: %d\n", r.NoEvidence)
	}
	fmt.Fprintf(b, "malformed evidence entries: %d (%d parsed into ids, %d unusable)", r.Malformed, r.Recovered, r.Unusable)
	if len(r.MalformedExamples) > 0 {
		fmt.Fprintf(b, ", e.g. %s", quoteAll(r.MalformedExamples))
	}
	fmt.Fprintf(b, "\nevidence ids naming no turn: %d\n", r.UnknownEvidence)
	if cv := r.CrossValidation; cv != nil {
		writeFolds(b, cv, "each conversation with the setting that did best on the others")
		writeLoCoMoRows(b, cv.Rows)
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "took %s\n", seconds(r.Seconds))
	return b.Flush()
}

// writeLoCoMoRows prints LoCoMo rows: evidence recall per category and
// overall, one column per system.
func writeLoCoMoRows(b *bufio.Writer, rows []Row) {
	fmt.Fprintf(b, "%-14s %9s %9s", "category", "questions", "evidence")
	for _, s := range Systems {
		fmt.Fprintf(b, " %10s", s)
	}
	b.WriteByte('\n')
	for _, row := range rows {
		fmt.Fprintf(b, "%-14s %9d %9d", row.Group, row.Questions, row.Evidence)
		for _, s := range Systems {
			fmt.Fprintf(b, " %10.3f", row.Systems[s][MetricEvidence])
		}
		b.WriteByte('\n')
	}
}

// writeFolds heads a cross-validation's table: what each fold chose.
func writeFolds(b *bufio.Writer, cv *CrossValidation, how string) {
	fmt.Fprintf(b, "\ncross-validated, held out: %s (chosen by %s)\n", how, cv.Choose)
	for _, f := range cv.Folds {
		fmt.Fprintf(b, "  %s, %d questions: %s (others %.3f, held out %.3f)\n", f.Held, f.Questions, f.Chosen, f.Train, f.Test)
	}
	b.WriteByte('\n')
}

func (r *LoCoMoReport) overall() *Row { return overallRow(r.Rows) }

func overallRow(rows []Row) *Row {
	for i := range rows {
		if rows[i].Group == Overall {
			return &rows[i]
		}
	}
	return nil
}

// lmeColumns are the LongMemEval table's metrics, with their headings.
var lmeColumns = []struct{ metric, head, format string }{
	{MetricSessR5, "sess R_all@5", " %12.3f"},
	{MetricSessR10, "sess R_all@10", " %13.3f"},
	{MetricSessN5, "sess NDCG@5", " %11.3f"},
	{MetricTurnR10, "turn R_any@10", " %13.3f"},
	{MetricEvidence, "evidence", " %8.3f"},
	{MetricTokens, "tokens", " %6.0f"},
}

// WriteText prints the report as a table: for each question type and
// overall, one line per system, then the paper's reference figures.
func (r *LongMemEvalReport) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "LongMemEval at %d tokens: %s, %d questions (%d abstention questions left out", r.Budget, r.Path, r.Questions, r.Abstention)
	if r.NoEvidence > 0 {
		fmt.Fprintf(b, ", %d without evidence", r.NoEvidence)
	}
	fmt.Fprintf(b, ")\n")
	fmt.Fprintf(b, "(session and turn metrics rank the retrieve with the question; evidence: share of evidence turns in the context)\n\n")
	writeLMERows(b, r.Rows)
	ref := r.Reference
	fmt.Fprintf(b, "\nreference, not the same haystack: %s\n", ref.Source)
	fmt.Fprintf(b, "on %s\n", ref.Haystack)
	fmt.Fprintf(b, "%-26s %4s %-10s", "", "", "paper")
	for _, c := range lmeColumns[:3] {
		fmt.Fprintf(b, c.format, ref.Figures[c.metric])
	}
	b.WriteByte('\n')
	if cv := r.CrossValidation; cv != nil {
		writeFolds(b, cv, "each part of the questions with the setting that did best on the others")
		writeLMERows(b, cv.Rows)
	}
	fmt.Fprintf(b, "\ntook %s\n", seconds(r.Seconds))
	return b.Flush()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// writeLMERows prints LongMemEval rows: for each question type and
// overall, one line per system.
func writeLMERows(b *bufio.Writer, rows []Row) {
	fmt.Fprintf(b, "%-26s %4s %-10s", "question type", "n", "system")
	for _, c := range lmeColumns {
		fmt.Fprintf(b, " %s", c.head)
	}
	b.WriteByte('\n')
	for _, row := range rows {
		for i, s := range Systems {
			if i == 0 {
				fmt.Fprintf(b, "%-26s %4d %-10s", row.Group, row.Questions, s)
			} else {
				fmt.Fprintf(b, "%-26s %4s %-10s", "", "", s)
			}
			for _, c := range lmeColumns {
				fmt.Fprintf(b, c.format, row.Systems[s][c.metric])
			}
			b.WriteByte('\n')
		}
	}
}
