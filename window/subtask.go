package window

import (
	"context"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

// buildSubtask is Build for a sub-agent (Options.Subtask): static already
// holds the task and the subtask. The sub-agent gets what recall found for
// its subtask and the runtime state, under the budget; it gets none of the
// parent's summaries and Working iterations, which would spend its room on
// phases that are not its own.
func buildSubtask(ctx context.Context, j *journal.Store, fs *fold.Store, run journal.Run, opts Options, c *Context, static Partition) (*Context, error) {
	notes, err := fs.WorkingNotes(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	f, state, dynamic, err := c.fitEnds(ctx, j, fs, run, notes, 0, &opts, &static)
	if err != nil {
		return nil, err
	}
	retrieved := Partition{Name: Retrieved}
	retrieved.Budget = max(0, opts.Config.Budget-fold.Margin(opts.Config.Budget)-f.cost(&static)-f.cost(&dynamic))
	var omitted []string
	c.Recalls = f.fitRetrieved(&retrieved, opts.Recalled, &omitted)
	c.Omitted = append(c.Omitted, omitted...)
	c.finish(&f, []Partition{static, {Name: LongTerm}, {Name: ShortTerm}, state, {Name: Working}, retrieved, dynamic})
	return c, nil
}
