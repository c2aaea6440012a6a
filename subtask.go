package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

// SubtaskContext builds the context of a sub-agent the run hands subtask
// to, under the configured budget (window.Options.Subtask): the run's
// task, the subtask, what recall finds for the subtask (ranked as a
// question to memory, with the room that Static and Dynamic leave), and
// the runtime state; not the parent's summaries or Working iterations.
// It changes nothing: no recall is recorded and no rendering kept.
func (e *Engine) SubtaskContext(ctx context.Context, run journal.Run, subtask, systemPrompt string) (*window.Context, error) {
	subtask = strings.TrimSpace(subtask)
	if subtask == "" {
		return nil, fmt.Errorf("%w: say what the subtask is, in words", recall.ErrEmptyQuery)
	}
	room := e.Config.Budget - e.Config.StaticBudget() - e.Config.DynamicBudget()
	found, err := e.fillHits(ctx, run, recall.Query{Keywords: []string{subtask}, Fill: true}, room)
	if err != nil {
		return nil, err
	}
	recalled := make([]window.Recalled, 0, len(found.hits))
	for i, h := range found.hits {
		rt := found.texts[i]
		if rt.full == "" && rt.lines == "" {
			continue
		}
		name := sameRecallName(h)
		if len(recalled) == 0 {
			name = recallName(h)
		}
		recalled = append(recalled, window.Recalled{Name: name, Bare: len(recalled) > 0, Source: fmt.Sprintf("subtask:%d", len(recalled)+1),
			Full: rt.full, Lines: rt.lines, FullTokens: rt.fullTokens, LinesTokens: rt.linesTokens, Covers: [2]int{h.First, min(h.Last, run.Iterations)}})
	}
	return window.Build(ctx, e.Journal, e.Fold, run, window.Options{Config: e.Config, Tokenizer: e.Tokenizer, SystemPrompt: systemPrompt,
		Recalled: recalled, Subtask: subtask})
}
