package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/longmemeval"
)

// The dev data lives beside the repository, in ../shared/evaldata; these
// tests skip when it is not there.
var devData = filepath.Join("..", "..", "shared", "evaldata")

// Floors under what the dev data gives at 4,000 tokens (LoCoMo evidence
// recall 0.878, LongMemEval session recall_all@5 0.889, on 2026-11-25): a
// change must not fall below them.
const (
	floorLoCoMoEvidence = 0.85
	floorLongMemEvalR5  = 0.85
)

var errNoDevData = errors.New("dev data not here")

// devOverall runs an eval on the dev data, skipping in -short mode (why
// says what it costs) and when the data is absent, logs its table, and
// returns the overall row.
func devOverall(t *testing.T, why string, run func() (interface{ WriteText(io.Writer) error }, []Row, error)) *Row {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	t.Parallel()
	rep, rows, err := run()
	if errors.Is(err, errNoDevData) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
	r := overallRow(rows)
	if r == nil {
		t.Fatal("no overall row")
	}
	return r
}

// beats checks a figure of ours against its floor and a baseline's.
func beats(t *testing.T, metric string, all *Row, floor float64, baseline string) {
	t.Helper()
	ours, theirs := all.Systems[SystemDelta][metric], all.Systems[baseline][metric]
	if ours < floor {
		t.Errorf("%s %.3f under the floor %.2f", metric, ours, floor)
	}
	if ours <= theirs {
		t.Errorf("%s %.3f does not beat %s (%.3f)", metric, ours, baseline, theirs)
	}
}

// TestLoCoMoDev evaluates the LoCoMo dev file at 4,000 tokens: the
// engine's evidence recall must beat both baselines, the quality
// bar.
func TestLoCoMoDev(t *testing.T) {
	malformed := 0
	all := devOverall(t, "evaluates about 500 questions", func() (interface{ WriteText(io.Writer) error }, []Row, error) {
		convs, err := locomo.Load(filepath.Join(devData, "locomo", "locomo-dev.json"))
		if err != nil {
			return nil, nil, fmt.Errorf("%w (../shared/evaldata/locomo): %v", errNoDevData, err)
		}
		rep, err := LoCoMo(context.Background(), convs, Options{})
		if err != nil {
			return nil, nil, err
		}
		malformed = rep.Malformed
		return rep, rep.Rows, nil
	})
	beats(t, MetricEvidence, all, floorLoCoMoEvidence, SystemRecent)
	beats(t, MetricEvidence, all, floorLoCoMoEvidence, SystemBM25)
	if malformed == 0 {
		t.Error(`the dev file has a malformed evidence entry ("D8:6; D9:17"); none was counted`)
	}
}

// TestLongMemEvalDev evaluates the LongMemEval dev questions: the engine's
// session recall_all@5 must beat bm25-turns, the quality bar.
func TestLongMemEvalDev(t *testing.T) {
	abstention := 0
	all := devOverall(t, "imports 40 haystacks of about 115k tokens each", func() (interface{ WriteText(io.Writer) error }, []Row, error) {
		qs, err := longmemeval.Load(filepath.Join(devData, "longmemeval", "s_cleaned"))
		if err != nil {
			return nil, nil, fmt.Errorf("%w (../shared/evaldata/longmemeval/s_cleaned): %v", errNoDevData, err)
		}
		rep, err := LongMemEval(context.Background(), qs, Options{})
		if err != nil {
			return nil, nil, err
		}
		abstention = rep.Abstention
		return rep, rep.Rows, nil
	})
	beats(t, MetricSessR5, all, floorLongMemEvalR5, SystemBM25)
	if abstention == 0 {
		t.Error("the dev questions hold abstention questions; none was left out")
	}
}
