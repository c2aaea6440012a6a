package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/delta-memory/delta-memory/internal/longmemeval"
)

// LongMemEvalReport is the result of a LongMemEval eval: ranking metrics
// and evidence recall per question type and overall, for the engine and
// the baselines, with the paper's figures beside them.
type LongMemEvalReport struct {
	Benchmark string `json:"benchmark"`
	Path      string `json:"path,omitempty"`
	Budget    int    `json:"budget"`
	// Questions counts the questions evaluated; Abstention the abstention
	// questions left out, as the official scripts do; NoEvidence those left
	// out because no turn of their haystack is marked as evidence.
	Questions  int       `json:"questions"`
	Abstention int       `json:"abstention_skipped"`
	NoEvidence int       `json:"questions_without_evidence"`
	Rows       []Row     `json:"rows"`
	Reference  Reference `json:"reference"`
	// CrossValidation, when asked for, holds the held-out figures.
	CrossValidation *CrossValidation `json:"cross_validation,omitempty"`
	Seconds         float64          `json:"seconds"`
}

// Reference is a published result to read ours against.
type Reference struct {
	Source   string             `json:"source"`
	Haystack string             `json:"haystack"`
	Figures  map[string]float64 `json:"figures"`
}

// PaperReference is LongMemEval's Table 2: a dense retriever, key = value,
// session level, on LongMemEval_M, whose haystacks are about ten times
// those of LongMemEval_S.
var PaperReference = Reference{
	Source:   "LongMemEval (Wu et al., ICLR 2025), Table 2: dense retriever, key = value, session level",
	Haystack: "LongMemEval_M (~500 sessions per question), not the ~50 of LongMemEval_S: a different haystack size",
	Figures:  map[string]float64{MetricSessR5: 0.706, MetricSessN5: 0.617, MetricSessR10: 0.783},
}

// LongMemEvalTypes orders the question types in a report.
var LongMemEvalTypes = []string{"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "knowledge-update", "temporal-reasoning"}

// LongMemEval evaluates the questions: each haystack becomes a run, and
// the question is asked as the package doc says. Abstention questions are
// left out.
func LongMemEval(ctx context.Context, qs []longmemeval.Question, opts Options) (*LongMemEvalReport, error) {
	start := time.Now()
	dir, cleanup, err := opts.workDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if opts.Limit > 0 && len(qs) > opts.Limit {
		qs = qs[:opts.Limit]
	}
	rep := &LongMemEvalReport{Benchmark: "longmemeval", Budget: opts.Budget, Reference: PaperReference}
	var t tally
	total, done := len(qs), 0
	if opts.CrossValidate {
		total *= 1 + len(Candidates)
	}
	step := func(run string) {
		done++
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Total: total, Run: run})
		}
	}
	for i := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := &qs[i]
		switch {
		case q.Abstention():
			rep.Abstention++
		default:
			sc, evidence, err := longMemEvalQuestion(ctx, q, filepath.Join(dir, fmt.Sprintf("q%d", i+1)), opts)
			if err != nil {
				return nil, fmt.Errorf("longmemeval %s (%s): %w", q.ID, q.Source, err)
			}
			if sc == nil {
				rep.NoEvidence++
				break
			}
			t.add(q.Type, evidence, sc)
			rep.Questions++
		}
		step(q.ID)
	}
	rep.Rows = t.result(LongMemEvalTypes)
	if opts.CrossValidate {
		if rep.CrossValidation, err = longMemEvalCrossValidation(ctx, qs, opts, step); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// longMemEvalQuestion imports one haystack, asks its question, and scores
// the engine and the baselines. It returns nil figures when the haystack
// marks no evidence.
func longMemEvalQuestion(ctx context.Context, q *longmemeval.Question, dir string, opts Options) (scored, int, error) {
	d := LongMemEvalDialogue(q)
	var evidence []int
	k := 0
	for _, s := range q.Sessions {
		for _, t := range s.Turns {
			if t.HasAnswer {
				evidence = append(evidence, k)
			}
			k++
		}
	}
	sessions := answerSessions(q)
	if len(evidence) == 0 || len(sessions) == 0 {
		return nil, 0, nil
	}
	defer opts.drop(dir)
	ws, err := newWorkspace(ctx, dir, opts.Engine, &d)
	if err != nil {
		return nil, 0, err
	}
	eng, err := ws.open(ctx, ws.base)
	if err != nil {
		return nil, 0, err
	}
	ours, err := ask(ctx, eng, &d, q.Text, true)
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	bm, err := newBM25Index(&d)
	if err != nil {
		return nil, 0, err
	}
	defer bm.close()
	lens := turnTokens(ws.tok, &d)
	top, err := bm.topTurns(ctx, ws.tok, &d, lens, q.Text, opts.Budget)
	if err != nil {
		return nil, 0, err
	}
	sc := scored{}
	all := map[string]shown{SystemDelta: ours, SystemRecent: recentTurns(ws.tok, &d, lens, opts.Budget), SystemBM25: top}
	for sys, sh := range all {
		sc[sys] = d.rankScores(sh, evidence, sessions)
	}
	if opts.Question != nil {
		qr := d.questionResult(q.Type, q.Text, evidence, all)
		qr.Contexts = contextTexts(opts, all)
		qr.Sessions, qr.Answer = map[string][]string{}, sessions
		for sys, sh := range all {
			qr.Sessions[sys] = d.topSessions(sh, 5)
		}
		opts.Question(qr)
	}
	return sc, len(evidence), nil
}

// rankScores computes one system's figures for one question.
func (d *Dialogue) rankScores(sh shown, evidence []int, sessions []string) map[string]float64 {
	var turnIDs, sessIDs []string
	for _, i := range sh.ranked {
		turnIDs = append(turnIDs, d.Turns[i].ID)
		sessIDs = append(sessIDs, d.Turns[i].Session)
	}
	sessIDs = Dedup(sessIDs)
	var evIDs []string
	for _, i := range evidence {
		evIDs = append(evIDs, d.Turns[i].ID)
	}
	return map[string]float64{
		MetricSessR5:   RecallAll(sessIDs, sessions, 5),
		MetricSessR10:  RecallAll(sessIDs, sessions, 10),
		MetricSessN5:   NDCGAny(sessIDs, sessions, 5),
		MetricTurnR10:  RecallAny(turnIDs, evIDs, 10),
		MetricEvidence: float64(d.present(sh.text, evidence)) / float64(len(evidence)),
		MetricTokens:   float64(sh.tokens),
	}
}

// answerSessions returns the question's answer sessions that are in its
// haystack.
func answerSessions(q *longmemeval.Question) []string {
	var out []string
	for _, s := range q.Sessions {
		if slices.Contains(q.AnswerSessions, s.ID) && !slices.Contains(out, s.ID) {
			out = append(out, s.ID)
		}
	}
	return out
}
