package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

// replayDelta replays tr into a fresh engine under dir, as the agent's
// journal grew: each step's events are appended and the engine updated
// (fold scheduler, recall index and triggers). At a probe's step, the
// events up to its tool calls are appended first, without their results,
// and the window is built there, as the agent would get it for the call;
// the results follow. It returns, for each probe, the window outside its
// Static partition and the window's tokens. tune, when set, changes the
// engine's fold settings; step is called after each step.
func replayDelta(ctx context.Context, tr *trajectory, cfg memory.Config, dir string, tune func(*fold.Config), step func()) (out []shown, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("eval directory: %w", err)
	}
	cfg.DBPath = filepath.Join(dir, dbName)
	eng, err := memory.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, eng.Close()) }()
	if tune != nil {
		if err := tuneFold(eng, tune); err != nil {
			return nil, err
		}
	}
	out = make([]shown, len(tr.probes))
	next := 0
	for i, it := range tr.steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		events := it.Events
		if i == 0 {
			events = append(slices.Clone(tr.head), events...)
		}
		cut := 0
		if next < len(tr.probes) && tr.probes[next].Step == it.Number {
			cut = pendingCut(events)
			if err := appendStep(ctx, eng, tr, events[:cut]); err != nil {
				return nil, err
			}
			sh, err := deltaWindow(ctx, eng, tr.name)
			if err != nil {
				return nil, err
			}
			for next < len(tr.probes) && tr.probes[next].Step == it.Number {
				out[next] = sh
				next++
			}
		}
		if cut < len(events) {
			if err := appendStep(ctx, eng, tr, events[cut:]); err != nil {
				return nil, err
			}
		}
		step()
	}
	return out, nil
}

// pendingCut is where a step's events stop being the agent's own: at its
// first tool result, or at the end when it has none.
func pendingCut(events []journal.Event) int {
	for i, e := range events {
		if e.Type == journal.TypeActionResult {
			return i
		}
	}
	return len(events)
}

// appendStep appends events to the run and updates the engine.
func appendStep(ctx context.Context, eng *memory.Engine, tr *trajectory, events []journal.Event) error {
	if len(events) > 0 {
		if _, err := eng.Journal.Append(ctx, tr.name, tr.format, events); err != nil {
			return fmt.Errorf("append to run %s: %w", tr.name, err)
		}
	}
	_, err := eng.Update(ctx, tr.name)
	return err
}

// deltaWindow builds the run's window, and returns its Markdown after the
// Static partition, with the whole window's tokens.
func deltaWindow(ctx context.Context, eng *memory.Engine, runID string) (shown, error) {
	run, err := eng.Journal.Run(ctx, runID)
	if err != nil {
		return shown{}, err
	}
	cw, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		return shown{}, err
	}
	return shown{text: outsideStatic(cw), tokens: cw.Tokens}, nil
}

// outsideStatic is a window's Markdown without its Static partition, which
// comes first.
func outsideStatic(cw *memory.Window) string {
	md := cw.Markdown()
	end := sort.Search(len(md), func(i int) bool { return cw.PlaceAt(i).Partition != window.Static })
	return md[end:]
}

// tuneFold changes an open engine's fold settings, where both the window
// and the folder read them. memory.Config has a hook for the recall
// settings only (Config.Recall); this stands in for one for the fold's.
func tuneFold(eng *memory.Engine, tune func(*fold.Config)) error {
	c := eng.Config
	tune(&c)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("fold settings: %w", err)
	}
	eng.Config, eng.Folder.Config = c, c
	return nil
}
