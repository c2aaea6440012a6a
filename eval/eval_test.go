package eval

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/internal/longmemeval"
)

// fixtureBudget is small enough that the fixtures' conversations fold and
// do not fit whole.
const fixtureBudget = 1000

// want is one row's expected figures: system → metric → value.
type want map[string]map[string]float64

func checkRow(t *testing.T, rows []Row, group string, questions int, w want) {
	t.Helper()
	i := slices.IndexFunc(rows, func(r Row) bool { return r.Group == group })
	if i < 0 {
		t.Errorf("no row %q in %+v", group, rows)
		return
	}
	r := rows[i]
	if r.Questions != questions {
		t.Errorf("%s: %d questions, want %d", group, r.Questions, questions)
	}
	for sys, ms := range w {
		for m, v := range ms {
			if got := r.Systems[sys][m]; math.Abs(got-v) > 1e-9 {
				t.Errorf("%s: %s %s = %.4f, want %.4f", group, sys, m, got, v)
			}
		}
	}
	for _, sys := range Systems {
		if tok := r.Systems[sys][MetricTokens]; tok > fixtureBudget {
			t.Errorf("%s: %s shows %.0f tokens, over the budget %d", group, sys, tok, fixtureBudget)
		}
	}
}

func ev(delta, recent, bm25 float64) want {
	return want{SystemDelta: {MetricEvidence: delta}, SystemRecent: {MetricEvidence: recent}, SystemBM25: {MetricEvidence: bm25}}
}

// TestLoCoMoFixture runs the eval on testdata/eval/locomo-mini.json, whose
// evidence is planted so that the figures can be worked out by hand:
//   - mini-1 has 36 turns, about 1,300 tokens: at 1,000 tokens the recent
//     baseline holds the last 26 or so, never session 1's first five;
//   - each question but the adversarial one shares rare words (parrot,
//     canoe, bassoon, quince, tram) with its evidence and with no other
//     turn, so BM25 ranks the evidence first and the engine's recall finds
//     it; "What colour is the bicycle?" shares no word with its evidence
//     (D1:2, two sentences, so no summary line holds it whole);
//   - mini-2 has 24 turns and fits the budget nearly whole;
//   - malformed evidence: "D1:3; D3:12" and "D:2:4" parse, "beehives" does
//     not, and "D9:99" names no turn: those two questions are left out.
func TestLoCoMoFixture(t *testing.T) {
	t.Parallel()
	convs, err := locomo.Load(filepath.Join("..", "testdata", "eval", "locomo-mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := LoCoMo(context.Background(), convs, Options{Budget: fixtureBudget})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 2 || rep.Questions != 7 || rep.NoEvidence != 2 {
		t.Errorf("conversations %d, questions %d, without evidence %d; want 2, 7, 2", rep.Conversations, rep.Questions, rep.NoEvidence)
	}
	if rep.Malformed != 3 || rep.Recovered != 2 || rep.Unusable != 1 || rep.UnknownEvidence != 1 {
		t.Errorf("malformed %d (recovered %d, unusable %d), unknown %d; want 3 (2, 1), 1", rep.Malformed, rep.Recovered, rep.Unusable, rep.UnknownEvidence)
	}
	if want := []string{"D1:3; D3:12", "D:2:4", "beehives"}; !slices.Equal(rep.MalformedExamples, want) {
		t.Errorf("malformed examples %q, want %q", rep.MalformedExamples, want)
	}
	// Per question (delta, recent, bm25): parrot 1,0,1; canoe 1,1,1;
	// bassoon (D1:5 old, D3:11 recent) 1,.5,1; bicycle 0,0,0; "D1:3; D3:12"
	// 1,.5,1; quince 1,1,1; tram 1,1,1.
	checkRow(t, rep.Rows, "multi-hop", 2, ev(1, 0.5, 1))
	checkRow(t, rep.Rows, "temporal", 2, ev(1, 1, 1))
	checkRow(t, rep.Rows, "single-hop", 2, ev(1, 0.5, 1))
	checkRow(t, rep.Rows, "adversarial", 1, ev(0, 0, 0))
	checkRow(t, rep.Rows, Overall, 7, ev(6.0/7, 4.0/7, 6.0/7))
	if last := rep.Rows[len(rep.Rows)-1].Group; last != Overall {
		t.Errorf("last row %q, want overall", last)
	}
}

// TestLongMemEvalFixture runs the eval on testdata/eval/longmemeval: two
// questions over 8 sessions of 4 turns (about 1,800 tokens), and one
// abstention question, left out.
//   - mini_q1: the evidence is session 1's first turn, the only one that
//     names vintage thimbles;
//   - mini_q2: the evidence is in sessions 2 and 7, the only turns that
//     name the tortoise (session 7 is listed before 6 in the file; date
//     order puts it back).
//
// The engine's retrieve and BM25 rank the evidence sessions first: every
// ranking metric is 1. The recent baseline ranks sessions newest first:
// q1's session comes 8th (R_all@5 0, R_all@10 1, NDCG@5 0) and its turn
// 29th or later; q2's sessions come 2nd and 7th (R_all@5 0, R_all@10 1,
// NDCG@5 = 1/log2(2) over the ideal 1 + 1 = 0.5), session 7's evidence
// turn 7th. At 1,000 tokens recent holds sessions 5 to 8, not 1 or 2.
func TestLongMemEvalFixture(t *testing.T) {
	t.Parallel()
	qs, err := longmemeval.Load(filepath.Join("..", "testdata", "eval", "longmemeval"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := LongMemEval(context.Background(), qs, Options{Budget: fixtureBudget})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 2 || rep.Abstention != 1 || rep.NoEvidence != 0 {
		t.Errorf("questions %d, abstention %d, without evidence %d; want 2, 1, 0", rep.Questions, rep.Abstention, rep.NoEvidence)
	}
	perfect := map[string]float64{MetricSessR5: 1, MetricSessR10: 1, MetricSessN5: 1, MetricTurnR10: 1, MetricEvidence: 1}
	checkRow(t, rep.Rows, "single-session-user", 1, want{
		SystemDelta: perfect, SystemBM25: perfect,
		SystemRecent: {MetricSessR5: 0, MetricSessR10: 1, MetricSessN5: 0, MetricTurnR10: 0, MetricEvidence: 0},
	})
	checkRow(t, rep.Rows, "multi-session", 1, want{
		SystemDelta: perfect, SystemBM25: perfect,
		SystemRecent: {MetricSessR5: 0, MetricSessR10: 1, MetricSessN5: 0.5, MetricTurnR10: 1, MetricEvidence: 0.5},
	})
	checkRow(t, rep.Rows, Overall, 2, want{
		SystemDelta: perfect, SystemBM25: perfect,
		SystemRecent: {MetricSessR5: 0, MetricSessR10: 1, MetricSessN5: 0.25, MetricTurnR10: 0.5, MetricEvidence: 0.25},
	})
	if rep.Reference.Figures[MetricSessR5] != 0.706 {
		t.Errorf("reference %+v", rep.Reference)
	}
}

// TestLimit keeps the first conversation and the first questions.
func TestLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	convs, err := locomo.Load(filepath.Join("..", "testdata", "eval", "locomo-mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []Progress
	rep, err := LoCoMo(ctx, convs, Options{Budget: fixtureBudget, Limit: 1, Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 1 || rep.Questions != 5 {
		t.Errorf("--limit 1: %d conversations, %d questions; want 1, 5", rep.Conversations, rep.Questions)
	}
	if len(seen) != 5 || seen[4] != (Progress{Done: 5, Total: 5, Run: "mini-1"}) {
		t.Errorf("progress %+v", seen)
	}
	qs, err := longmemeval.Load(filepath.Join("..", "testdata", "eval", "longmemeval"))
	if err != nil {
		t.Fatal(err)
	}
	lrep, err := LongMemEval(ctx, qs, Options{Budget: fixtureBudget, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if lrep.Questions != 1 || lrep.Abstention != 0 {
		t.Errorf("--limit 1: %d questions, %d abstention; want 1, 0", lrep.Questions, lrep.Abstention)
	}
}

// TestInterrupted stops at once with the context's error.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	convs, err := locomo.Load(filepath.Join("..", "testdata", "eval", "locomo-mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoCoMo(ctx, convs, Options{Budget: fixtureBudget}); !errors.Is(err, context.Canceled) {
		t.Fatalf("LoCoMo on a cancelled context: %v, want context.Canceled", err)
	}
	qs, err := longmemeval.Load(filepath.Join("..", "testdata", "eval", "longmemeval"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LongMemEval(ctx, qs, Options{Budget: fixtureBudget}); !errors.Is(err, context.Canceled) {
		t.Fatalf("LongMemEval on a cancelled context: %v, want context.Canceled", err)
	}
}
