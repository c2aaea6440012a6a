package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/journal"
)

// recentShown is how many of the newest iterations `show` lists.
const recentShown = 10

func showCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "show",
		Usage: "show a run's summary, or one iteration in full",
		Description: `Without --iteration, prints the run's summary and its newest iterations, one line each.
With --iteration N, prints that iteration in full: the thought, then each tool call with
its arguments and result. --json gives the run object, and with --iteration the raw events.

Examples:
   delta memory show
   delta memory show --run run-42 --iteration 12
   delta memory show --json`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "iteration", Aliases: []string{"i"}, Usage: "iteration number to print in full"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			eng, err := openEngine(c, e, true)
			if err != nil {
				return err
			}
			defer eng.Close()
			run, err := eng.ResolveRun(c.Context, global(c, e, "run"))
			if err != nil {
				return err
			}
			if c.IsSet("iteration") {
				it, err := eng.Journal.Iteration(c.Context, run.ID, c.Int("iteration"), journal.ReadOptions{WithEvents: c.Bool("json")})
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(e, map[string]any{"run": toRunJSON(run), "iteration": toIterationJSON(it)})
				}
				_, err = io.WriteString(e.stdout, it.Text())
				return err
			}
			counts, err := eng.Journal.Counts(c.Context, run.ID)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"run": toRunJSON(run), "counts": counts})
			}
			printRun(e.stdout, run, counts)
			if run.Iterations == 0 {
				return nil
			}
			from := max(1, run.Iterations-recentShown+1)
			its, err := eng.Journal.Iterations(c.Context, run.ID, from, run.Iterations, journal.ReadOptions{})
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "\nnewest iterations:\n")
			for _, it := range its {
				fmt.Fprintln(e.stdout, iterationLine(it))
			}
			return nil
		},
	})
}

// runJSON is the fixed shape of a run in --json output.
type runJSON struct {
	ID         string `json:"id"`
	Task       string `json:"task"`
	Status     string `json:"status"`
	Iterations int    `json:"iterations"`
	Events     int64  `json:"events"`
	LastSeq    int64  `json:"last_seq"`
	Format     string `json:"format"`
	AgentRef   string `json:"agent_ref,omitempty"`
	StartedAt  string `json:"started_at,omitempty"`
	EndedAt    string `json:"ended_at,omitempty"`
}

func toRunJSON(r journal.Run) runJSON {
	return runJSON{
		ID: r.ID, Task: r.Task, Status: r.Status, Iterations: r.Iterations, Events: r.Events, LastSeq: r.LastSeq,
		Format: r.Format, AgentRef: r.AgentRef, StartedAt: stamp(r.StartedAt), EndedAt: stamp(r.EndedAt),
	}
}

type eventJSON struct {
	Seq       int64           `json:"seq"`
	Timestamp string          `json:"timestamp,omitempty"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type iterationJSON struct {
	Number   int         `json:"number"`
	FirstSeq int64       `json:"first_seq"`
	LastSeq  int64       `json:"last_seq"`
	Status   string      `json:"status"`
	HasError bool        `json:"has_error"`
	Events   []eventJSON `json:"events"`
}

func toIterationJSON(it *journal.Iteration) iterationJSON {
	out := iterationJSON{Number: it.Number, FirstSeq: it.FirstSeq, LastSeq: it.LastSeq, Status: it.Status, HasError: it.HasError}
	out.Events = make([]eventJSON, len(it.Events))
	for i, ev := range it.Events {
		out.Events[i] = eventJSON{Seq: ev.Seq, Timestamp: stampNano(ev.Timestamp), Type: ev.Type, Payload: ev.Payload}
	}
	return out
}

func printRun(w io.Writer, r journal.Run, c journal.Counts) {
	fmt.Fprintf(w, "run         %s (%s, %s)\n", r.ID, r.Format, r.Status)
	if r.Task != "" {
		fmt.Fprintf(w, "task        %s\n", oneLine(r.Task, 100))
	}
	fmt.Fprintf(w, "iterations  %d   events %d   last seq %d\n", r.Iterations, r.Events, r.LastSeq)
	fmt.Fprintf(w, "tool calls  %d (%d failed, %d pending); %d iterations with errors\n", c.Calls, c.FailedCalls, c.PendingCalls, c.ErrorIterations)
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(w, "time        %s → %s (%s)\n", stamp(r.StartedAt), stamp(r.EndedAt), r.EndedAt.Sub(r.StartedAt).Round(time.Second))
	}
}

// iterationLine is a one-line listing of an iteration: number, status, tools, thought.
func iterationLine(it *journal.Iteration) string {
	names := make([]string, 0, len(it.Calls))
	for _, c := range it.Calls {
		names = append(names, c.Name)
	}
	tools := strings.Join(names, ",")
	if tools == "" {
		tools = "-"
	}
	return fmt.Sprintf("  [%d] %-7s %-24s %s", it.Number, it.Status, oneLine(tools, 24), oneLine(it.Thought, 80))
}

// oneLine flattens s to a single line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func stampNano(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
