package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/engine"
	"github.com/delta-memory/delta-memory/internal/window"
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
			&cli.BoolFlag{Name: "all", Usage: "with --json, list absorbed and unfolded blocks too"},
		},
		Action: func(c *cli.Context) error {
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
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
			blocks := eng.Fold.VisibleBlocks
			if c.Bool("all") {
				blocks = eng.Fold.AllBlocks
			}
			bs, err := blocks(c.Context, run.ID)
			if err != nil {
				return err
			}
			marks, rcs, err := inWindow(c, eng, run)
			if err != nil {
				return err
			}
			usage, err := eng.Fold.LLMTotals(c.Context, run.ID)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out := make([]blockJSON, len(bs))
				for i, b := range bs {
					out[i] = toBlockJSON(b)
				}
				return writeJSON(e, map[string]any{"run": toRunJSON(run), "counts": counts, "blocks": out, "bookmarks": marks, "retrieved": rcs, "llm": toLLMJSON(usage)})
			}
			printRun(e.stdout, run, counts)
			printLLM(e.stdout, usage)
			printFolds(e.stdout, bs, marks, rcs)
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

// blockJSON is the fixed shape of a block in --json output.
type blockJSON struct {
	ID           string   `json:"id"`
	Level        int      `json:"level"`
	Kind         string   `json:"kind"`
	Iterations   [2]int   `json:"iterations"`
	Title        string   `json:"title"`
	Content      string   `json:"content"`
	Outcome      string   `json:"outcome"`
	Keywords     []string `json:"keywords"`
	Entities     []string `json:"entities"`
	StateChanges []string `json:"state_changes"`
	Errors       []string `json:"errors"`
	Pinned       []int    `json:"pinned"`
	Importance   float64  `json:"importance"`
	AccessCount  int      `json:"access_count"`
	Trigger      string   `json:"trigger"`
	Summarizer   string   `json:"summarizer"`
	// LLMTokens is what the endpoint reported for the calls that made the
	// block (zeros for extractive blocks), LLMCalls how many calls that was.
	LLMTokens llmTokensJSON `json:"llm_tokens"`
	LLMCalls  int           `json:"llm_calls"`
	// SelfCheck: "" (none), "complete", "amended" or "failed: <reason>".
	SelfCheck   string  `json:"self_check"`
	Tokens      int     `json:"tokens"`
	Parent      *string `json:"parent"`
	Visible     bool    `json:"visible"`
	Unfolded    bool    `json:"unfolded"`
	CreatedIter int     `json:"created_iter"`
	StartedAt   string  `json:"started_at,omitempty"`
	EndedAt     string  `json:"ended_at,omitempty"`
}

func toBlockJSON(b *fold.Block) blockJSON {
	out := blockJSON{
		ID: b.ID, Level: b.Level, Kind: b.Kind, Iterations: [2]int{b.First, b.Last}, Title: b.Title, Content: b.Content,
		Outcome: b.Outcome, Keywords: nonNil(b.Keywords), Entities: nonNil(b.Entities), StateChanges: nonNil(b.StateChanges),
		Errors: nonNil(b.Errors), Pinned: b.Pinned, Importance: math.Round(b.Importance*1000) / 1000, AccessCount: b.AccessCount,
		Trigger: b.Trigger, Summarizer: b.Summarizer, Tokens: b.Tokens, Visible: b.Visible, Unfolded: b.Unfolded,
		LLMTokens: llmTokensJSON{Prompt: b.LLM.PromptTokens, Completion: b.LLM.CompletionTokens}, LLMCalls: b.LLM.Calls, SelfCheck: b.SelfCheck,
		CreatedIter: b.CreatedIter, StartedAt: stamp(b.Start), EndedAt: stamp(b.End),
	}
	if out.Pinned == nil {
		out.Pinned = []int{}
	}
	if b.Parent != "" {
		p := b.Parent
		out.Parent = &p
	}
	return out
}

// bookmarkJSON is a bookmark and whether its text made it into the window.
type bookmarkJSON struct {
	fold.Bookmark
	InWindow bool `json:"in_window"`
}

// bookmarksInWindow lists the run's bookmarks, building the window to see
// which texts the budget could not hold.
// retrievedJSON is an active recall in show --json, and how the window
// shows it: "full", "lines", "omitted" (no room left in the Retrieved
// share), or "working" (its iterations show in full in Working already).
type retrievedJSON struct {
	ID         int     `json:"id"`
	Iterations [2]int  `json:"iterations"`
	Block      *string `json:"block"`
	Reason     string  `json:"reason"`
	Query      string  `json:"query"`
	Score      float64 `json:"score"`
	Since      int     `json:"since"`
	Expires    int     `json:"expires"`
	Shown      string  `json:"shown"`
}

// inWindow says which bookmarks' texts and which active recalls made it
// into the window; it builds the window only when there are some.
func inWindow(c *cli.Context, eng *engine.Engine, run journal.Run) ([]bookmarkJSON, []retrievedJSON, error) {
	marks, err := eng.Fold.Bookmarks(c.Context, run.ID)
	if err != nil {
		return nil, nil, err
	}
	active, err := eng.Recall.Active(c.Context, run.ID, run.Iterations)
	if err != nil {
		return nil, nil, err
	}
	bms, rcs := make([]bookmarkJSON, len(marks)), make([]retrievedJSON, len(active))
	if len(marks) == 0 && len(active) == 0 {
		return bms, rcs, nil
	}
	cx, err := eng.Context(c.Context, run, engine.ContextOptions{})
	if err != nil {
		return nil, nil, err
	}
	for i, m := range marks {
		bms[i] = bookmarkJSON{Bookmark: m, InWindow: true}
		for _, o := range cx.Omitted {
			if strings.HasPrefix(o, fmt.Sprintf("bookmark:%d ", m.Iteration)) {
				bms[i].InWindow = false
			}
		}
	}
	for i, r := range active {
		rj := retrievedJSON{ID: r.ID, Iterations: [2]int{r.First, r.Last}, Reason: r.Reason, Query: r.Query, Score: r.Score,
			Since: r.Since, Expires: r.Expires, Shown: cx.Recalls[fmt.Sprintf("recall:%d", r.ID)]}
		if r.Block != "" {
			b := r.Block
			rj.Block = &b
		}
		if rj.Shown == "" {
			rj.Shown = window.ShownOmitted
			if full, err := eng.Fold.InFull(c.Context, run.ID, r.First, min(r.Last, run.Iterations)); err == nil && full == min(r.Last, run.Iterations)-r.First+1 {
				rj.Shown = "working"
			}
		}
		rcs[i] = rj
	}
	return bms, rcs, nil
}

// printFolds lists the visible blocks, bookmarks and active recalls under
// the run summary.
func printFolds(w io.Writer, bs []*fold.Block, marks []bookmarkJSON, rcs []retrievedJSON) {
	defer func() {
		if len(rcs) == 0 {
			return
		}
		fmt.Fprintf(w, "\nrecalled (%d active):\n", len(rcs))
		for _, r := range rcs {
			fmt.Fprintf(w, "  iterations %d-%d  %-8s %-30s since %d, until %d, shown: %s\n",
				r.Iterations[0], r.Iterations[1], r.Reason, oneLine(r.Query, 30), r.Since, r.Expires, r.Shown)
		}
	}()
	if len(bs) > 0 {
		fmt.Fprintf(w, "\nblocks shown (%d):\n", len(bs))
		for _, b := range bs {
			fmt.Fprintf(w, "  %-14s L%d %-9s %5d tokens  %-9s %s\n", b.ID, b.Level, b.Range(), b.Tokens, b.Trigger, oneLine(b.Title, 60))
		}
	}
	if len(marks) > 0 {
		fmt.Fprintf(w, "\nbookmarks:\n")
		for _, m := range marks {
			fmt.Fprintf(w, "  [%d] %s\n", m.Iteration, m.Note)
			if !m.InWindow {
				fmt.Fprintf(w, "       its text is not in the window: the budget cannot hold it (see context --format json, \"omitted\")\n")
			}
		}
	}
}
