package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/delta-memory/delta-memory/internal/locomo"
	"github.com/delta-memory/delta-memory/scoring"
)

// LoCoMoReport is the result of a LoCoMo eval: evidence recall per
// category and overall, for the engine and the baselines.
type LoCoMoReport struct {
	Benchmark     string `json:"benchmark"`
	Path          string `json:"path,omitempty"`
	Budget        int    `json:"budget"`
	Conversations int    `json:"conversations"`
	// Questions counts the questions evaluated; NoEvidence those left out
	// because none of their evidence names a turn.
	Questions  int `json:"questions"`
	NoEvidence int `json:"questions_without_evidence"`
	// Malformed counts the evidence entries that were not one well-formed
	// dialogue id ("D8:6; D9:17", "D:11:26"): Recovered of them still gave
	// ids, Unusable gave none.
	Malformed         int      `json:"malformed_evidence"`
	Recovered         int      `json:"malformed_recovered"`
	Unusable          int      `json:"malformed_unusable"`
	MalformedExamples []string `json:"malformed_examples"`
	// UnknownEvidence counts parsed ids that name no turn of their
	// conversation; they are left out of the evidence.
	UnknownEvidence int   `json:"unknown_evidence"`
	Rows            []Row `json:"rows"`
	// CrossValidation, when asked for, holds the held-out figures.
	CrossValidation *CrossValidation `json:"cross_validation,omitempty"`
	Seconds         float64          `json:"seconds"`
}

// maxExamples bounds the malformed entries quoted in a report.
const maxExamples = 5

// LoCoMo evaluates the conversations: for every question with evidence,
// the share of its evidence turns whose text is in the context the engine
// builds for it (see the package doc), next to the recent and bm25-turns
// baselines on the same budget.
func LoCoMo(ctx context.Context, convs []locomo.Conversation, opts Options) (*LoCoMoReport, error) {
	start := time.Now()
	dir, cleanup, err := opts.workDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if opts.Limit > 0 && len(convs) > opts.Limit {
		convs = convs[:opts.Limit]
	}
	rep := &LoCoMoReport{Benchmark: "locomo", Budget: opts.Budget, Conversations: len(convs), MalformedExamples: []string{}}
	total := 0
	for _, c := range convs {
		total += len(c.Questions)
	}
	if opts.CrossValidate {
		total *= 1 + len(Candidates)
	}
	var t tally
	done := 0
	step := func(run string) {
		done++
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Total: total, Run: run})
		}
	}
	for ci := range convs {
		c := &convs[ci]
		if err := locomoConversation(ctx, c, filepath.Join(dir, fmt.Sprintf("conv%d", ci+1)), opts, rep, &t, func() { step(c.ID) }); err != nil {
			return nil, fmt.Errorf("locomo %s: %w", c.ID, err)
		}
	}
	var cats []string
	for i := 1; i <= len(locomo.Categories); i++ {
		cats = append(cats, locomo.Categories[i])
	}
	rep.Rows = t.result(cats)
	if opts.CrossValidate {
		if rep.CrossValidation, err = locomoCrossValidation(ctx, convs, opts, step); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// locomoConversation evaluates one conversation's questions; step is
// called after each question, evaluated or not.
func locomoConversation(ctx context.Context, c *locomo.Conversation, dir string, opts Options, rep *LoCoMoReport, t *tally, step func()) error {
	d := LoCoMoDialogue(c)
	ws, err := newWorkspace(ctx, dir, opts.Engine, &d)
	if err != nil {
		return err
	}
	bm, err := newBM25Index(&d)
	if err != nil {
		return err
	}
	defer bm.close()
	tok := ws.tok
	lens := turnTokens(tok, &d)
	recent := recentTurns(tok, &d, lens, opts.Budget)
	index := d.turnIndex()
	for _, q := range c.Questions {
		if err := ctx.Err(); err != nil {
			return err
		}
		evidence := rep.evidence(q, index)
		if len(evidence) == 0 {
			rep.NoEvidence++
			step()
			continue
		}
		s, err := locomoQuestion(ctx, ws, bm, tok, &d, lens, q.Question, opts.Budget, opts.Question != nil)
		if err != nil {
			return err
		}
		s[SystemRecent] = recent
		sc := scored{}
		for sys, sh := range s {
			sc[sys] = map[string]float64{
				MetricEvidence: float64(d.present(sh.text, evidence)) / float64(len(evidence)),
				MetricTokens:   float64(sh.tokens),
			}
		}
		name := locomo.Categories[q.Category]
		if name == "" {
			name = fmt.Sprintf("category %d", q.Category)
		}
		t.add(name, len(evidence), sc)
		if opts.Question != nil {
			qr := d.questionResult(name, q.Question, evidence, s)
			qr.Contexts = contextTexts(opts, s)
			opts.Question(qr)
		}
		rep.Questions++
		step()
	}
	return nil
}

// locomoQuestion asks the engine on a fresh copy of the conversation, and
// the bm25-turns baseline.
// With rank, the engine's ranking is kept too, for Options.Question.
func locomoQuestion(ctx context.Context, ws *workspace, bm *bm25Index, tok scoring.Tokenizer, d *Dialogue, lens []int, question string, budget int, rank bool) (map[string]shown, error) {
	eng, done, err := ws.fresh(ctx)
	if err != nil {
		return nil, err
	}
	ours, err := ask(ctx, eng, d, question, rank)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return nil, err
	}
	top, err := bm.topTurns(ctx, tok, d, lens, question, budget)
	if err != nil {
		return nil, err
	}
	return map[string]shown{SystemDelta: ours, SystemBM25: top}, nil
}

// evidence resolves a question's evidence to turn indices, counting the
// malformed entries and the ids that name no turn.
func (rep *LoCoMoReport) evidence(q locomo.Question, index map[string]int) []int {
	for _, bad := range q.BadEvidence {
		rep.Malformed++
		if ids, _ := locomo.ParseEvidence(bad); len(ids) > 0 {
			rep.Recovered++
		} else {
			rep.Unusable++
		}
		if len(rep.MalformedExamples) < maxExamples && !slices.Contains(rep.MalformedExamples, bad) {
			rep.MalformedExamples = append(rep.MalformedExamples, bad)
		}
	}
	var out []int
	for _, id := range q.Evidence {
		i, ok := index[id]
		if !ok {
			rep.UnknownEvidence++
			continue
		}
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}
