package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// prepareTrajectories imports each transcript into a scratch engine under
// dir, once, reads its steps back as the engine groups them and finds its
// probes. Transcripts without tool calls are left out, and named in
// without. It returns the engine's tokenizer too, for the baselines.
func prepareTrajectories(ctx context.Context, dir string, cfg memory.Config, ts []Transcript) (runs []*trajectory, without []string, tok scoring.Tokenizer, err error) {
	cfg.DBPath = filepath.Join(dir, dbName)
	eng, err := memory.Open(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { err = errors.Join(err, eng.Close()) }()
	for _, t := range ts {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		tr, err := readTrajectory(ctx, eng, t)
		if err != nil {
			return nil, nil, nil, err
		}
		if tr == nil {
			without = append(without, t.Name)
			continue
		}
		runs = append(runs, tr)
	}
	return runs, without, eng.Tokenizer, nil
}

// readTrajectory imports one transcript as a run of eng and reads it back;
// nil when no step calls a tool.
func readTrajectory(ctx context.Context, eng *memory.Engine, t Transcript) (*trajectory, error) {
	if _, err := eng.Journal.Append(ctx, t.Name, t.Format, t.Events); err != nil {
		return nil, fmt.Errorf("import %s: %w", t.Name, err)
	}
	run, err := eng.Journal.Run(ctx, t.Name)
	if err != nil {
		return nil, err
	}
	if run.Iterations == 0 {
		return nil, nil
	}
	steps, err := eng.Journal.Iterations(ctx, t.Name, 1, run.Iterations, journal.ReadOptions{WithEvents: true})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Name, err)
	}
	var head []journal.Event
	for _, e := range t.Events {
		if e.Seq < steps[0].FirstSeq {
			head = append(head, e)
		}
	}
	tr := newTrajectory(t.Name, t.Format, run, head, steps)
	if tr.calls == 0 {
		return nil, nil
	}
	return tr, nil
}
