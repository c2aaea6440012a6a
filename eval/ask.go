package eval

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// rankDepth is how many hits the ranking for the ranking metrics asks of
// the engine's retrieve: enough for ten distinct sessions.
const rankDepth = 50

// ask puts a question to the engine as an agent would meet it, and returns
// the context the agent would get:
//  1. the question is appended to the run as a user message: a new
//     iteration, the agent's current step;
//  2. the engine updates the run: fold scheduler, recall index, implicit
//     and error-driven recall triggers;
//  3. the agent calls its recall_memory tool with the question as the
//     keywords and the tool's default limit; the hits are recorded;
//  4. the context window is built under the budget.
//
// With rank set, it also returns the turns the engine's retrieve ranks for
// the question (a dry run: it ranks what shows in full too), best first.
// ask changes the run: call it on a copy.
func ask(ctx context.Context, eng *memory.Engine, d *Dialogue, question string, rank bool) (shown, error) {
	run, err := eng.Journal.Run(ctx, d.ID)
	if err != nil {
		return shown{}, err
	}
	payload, err := json.Marshal(journal.TextPayload{Content: question})
	if err != nil {
		return shown{}, err
	}
	ev := journal.Event{Seq: run.LastSeq + 1, Timestamp: d.AskedAt, Type: journal.TypeUserMessage, Payload: payload}
	if _, err := eng.Journal.Append(ctx, d.ID, journal.FormatDelta, []journal.Event{ev}); err != nil {
		return shown{}, fmt.Errorf("append the question to run %s: %w", d.ID, err)
	}
	if _, err := eng.Update(ctx, d.ID); err != nil {
		return shown{}, err
	}
	if run, err = eng.Journal.Run(ctx, d.ID); err != nil {
		return shown{}, err
	}
	var out shown
	if rank {
		hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{question}, Limit: rankDepth, DryRun: true})
		if err != nil {
			return shown{}, fmt.Errorf("rank for %q: %w", question, err)
		}
		out.ranked = hitTurns(hits, len(d.Turns))
	}
	if _, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{question}}); err != nil {
		return shown{}, fmt.Errorf("recall for %q: %w", question, err)
	}
	cw, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		return shown{}, err
	}
	out.text, out.tokens = cw.Markdown(), cw.Tokens
	return out, nil
}

// hitTurns lists the turns (0-based) of hits in rank order: a hit on a
// range brings back each of its iterations. What the hits matched comes
// first, in rank order, then the context around them, which is not ranked. Iterations past the dialogue (the question
// itself) are left out.
func hitTurns(hits []memory.Retrieved, turns int) []int {
	var out []int
	seen := make(map[int]bool)
	add := func(first, last int) {
		for n := first; n <= last && n <= turns; n++ {
			if n >= 1 && !seen[n] {
				seen[n] = true
				out = append(out, n-1)
			}
		}
	}
	for _, h := range hits {
		add(h.Matched[0], h.Matched[1])
	}
	for _, h := range hits {
		add(h.Iterations[0], h.Iterations[1])
	}
	return out
}
