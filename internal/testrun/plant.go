package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/synth"
	"github.com/delta-memory/delta-memory/journal"
)

// Plant is an iteration written into a generated run at a given number,
// in place of the generated one.
type Plant struct {
	At      int
	Thought string
	Calls   []PlantCall
}

// PlantCall is one tool call of a planted iteration.
type PlantCall struct {
	Tool    string
	Args    map[string]any
	Command string
	// Status defaults to SUCCESS.
	Status string
	Output string
}

// Planted generates a run of o.Iterations iterations with plants in place
// of the generated iterations at their numbers. Sequence numbers and
// timestamps are renumbered so the journal stays ordered.
func Planted(tb testing.TB, o Options, plants []Plant) []journal.Event {
	tb.Helper()
	gen, err := synth.New(synth.Config{Seed: o.Seed + 1, Iterations: o.Iterations, RunID: RunID, MaxOutputBytes: o.MaxOutputBytes})
	if err != nil {
		tb.Fatal(err)
	}
	byAt := map[int]Plant{}
	for _, p := range plants {
		byAt[p.At] = p
	}
	var out []journal.Event
	var clock time.Time
	for n := 1; n <= o.Iterations; n++ {
		evs, ok := gen.Next()
		if !ok {
			break
		}
		p, planted := byAt[n]
		for _, e := range evs {
			if !planted || e.Type == journal.TypeRunStart || e.Type == journal.TypeUserMessage || e.Type == journal.TypeRunEnd {
				if planted && e.Type == journal.TypeRunEnd {
					continue
				}
				out = append(out, e)
				clock = e.Timestamp
			}
		}
		if planted {
			clock = clock.Add(time.Second)
			out = append(out, plantEvents(n, p, clock)...)
			clock = out[len(out)-1].Timestamp
		}
	}
	for i := range out {
		out[i].Seq = int64(i + 1)
	}
	return out
}

func plantEvents(n int, p Plant, at time.Time) []journal.Event {
	ev := func(typ string, payload any) journal.Event {
		raw, _ := json.Marshal(payload)
		at = at.Add(200 * time.Millisecond)
		return journal.Event{Timestamp: at, Type: typ, Payload: raw}
	}
	specs := make([]journal.ToolCallSpec, len(p.Calls))
	args := make([]json.RawMessage, len(p.Calls))
	for i, c := range p.Calls {
		args[i], _ = json.Marshal(c.Args)
		specs[i] = journal.ToolCallSpec{ID: fmt.Sprintf("plant_%d_%d", n, i+1), Type: "function",
			Function: journal.FunctionCall{Name: c.Tool, Arguments: string(args[i])}}
	}
	out := []journal.Event{ev(journal.TypeThought, journal.ThoughtPayload{Content: p.Thought, ToolCalls: specs})}
	for i, c := range p.Calls {
		status := c.Status
		if status == "" {
			status = journal.StatusSuccess
		}
		out = append(out,
			ev(journal.TypeActionRequest, journal.ActionRequestPayload{ActionID: specs[i].ID, ToolName: c.Tool, ToolArgs: args[i], ResolvedCommand: c.Command}),
			ev(journal.TypeActionResult, journal.ActionResultPayload{ActionID: specs[i].ID, Status: status, ObservationContent: c.Output}))
	}
	return out
}

// Feed appends events to a fresh engine in tb.TempDir in batches, and
// brings the run up to date (folds, index, recall triggers) after each
// batch, as an agent's runtime calling sync would. It returns the engine.
func Feed(tb testing.TB, events []journal.Event, budget, batch int) *memory.Engine {
	tb.Helper()
	eng, err := memory.Open(context.Background(), memory.Config{DBPath: filepath.Join(tb.TempDir(), "memory.db"), Budget: budget})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	FeedMore(tb, eng, events, batch)
	return eng
}

// FeedMore appends events to eng as Feed does.
func FeedMore(tb testing.TB, eng *memory.Engine, events []journal.Event, batch int) {
	tb.Helper()
	ctx := context.Background()
	for a := 0; a < len(events); a += batch {
		z := min(len(events), a+batch)
		if _, err := eng.Journal.Append(ctx, RunID, journal.FormatDelta, events[a:z]); err != nil {
			tb.Fatal(err)
		}
		if _, err := eng.Update(ctx, RunID); err != nil {
			tb.Fatal(err)
		}
	}
}

// UpTo returns the events of iterations 1..n (and the run's opening).
func UpTo(events []journal.Event, n int) []journal.Event {
	thoughts := 0
	for i, e := range events {
		if e.Type == journal.TypeThought {
			thoughts++
			if thoughts > n {
				return events[:i]
			}
		}
	}
	return events
}
