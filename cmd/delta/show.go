package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
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
			g := glance{run: run}
			if g.counts, err = eng.Journal.Counts(c.Context, run.ID); err != nil {
				return err
			}
			blocks := eng.Fold.VisibleBlocks
			if c.Bool("all") {
				blocks = eng.Fold.AllBlocks
			}
			if g.blocks, err = blocks(c.Context, run.ID); err != nil {
				return err
			}
			if g.cx, err = eng.Context(c.Context, run, memory.ContextOptions{}); err != nil {
				return err
			}
			if g.marks, g.active, err = inWindow(c, eng, run, g.cx); err != nil {
				return err
			}
			if g.llm, err = eng.Fold.LLMTotals(c.Context, run.ID); err != nil {
				return err
			}
			if g.totals, err = eng.Fold.Totals(c.Context, run.ID); err != nil {
				return err
			}
			if err := llmState(c.Context, eng, run.ID, &g); err != nil {
				return err
			}
			if g.recalls, err = recallCounts(c, eng, run); err != nil {
				return err
			}
			if c.Bool("json") {
				out := make([]blockJSON, len(g.blocks))
				for i, b := range g.blocks {
					out[i] = toBlockJSON(b)
				}
				return writeJSON(e, map[string]any{"run": toRunJSON(run), "counts": g.counts, "blocks": out, "bookmarks": g.marks,
					"retrieved": g.active, "llm": toLLMJSON(g), "totals": toTotalsJSON(g), "last_sync": toLastSyncJSON(g.lastSync)})
			}
			if g.folds, err = eng.Fold.Log(c.Context, run.ID, 200); err != nil {
				return err
			}
			printGlance(e.stdout, g, palette{on: e.color()})
			if run.Iterations == 0 {
				return nil
			}
			from := max(1, run.Iterations-recentShown+1)
			its, err := eng.Journal.Iterations(c.Context, run.ID, from, run.Iterations, journal.ReadOptions{})
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "\n%s\n", palette{on: e.color()}.bold("newest iterations"))
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
	// AwaitingLLM says the block shows its extractive summary until the
	// model's replaces it (a sync did not wait for the model).
	AwaitingLLM bool `json:"awaiting_llm"`
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
		Trigger: b.Trigger, Summarizer: b.Summarizer, AwaitingLLM: b.AwaitingLLM, Tokens: b.Tokens, Visible: b.Visible, Unfolded: b.Unfolded,
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
// into the compiled window cx.
func inWindow(c *cli.Context, eng *memory.Engine, run journal.Run, cx *window.Context) ([]bookmarkJSON, []retrievedJSON, error) {
	marks, err := eng.Fold.Bookmarks(c.Context, run.ID)
	if err != nil {
		return nil, nil, err
	}
	active, err := eng.Recall.Active(c.Context, run.ID, run.Iterations)
	if err != nil {
		return nil, nil, err
	}
	bms, rcs := make([]bookmarkJSON, len(marks)), make([]retrievedJSON, len(active))
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

// recallCounts counts the run's recalls ever made, by reason.
func recallCounts(c *cli.Context, eng *memory.Engine, run journal.Run) (map[string]int, error) {
	all, err := eng.Recall.History(c.Context, run.ID, 0)
	if err != nil {
		return nil, err
	}
	by := map[string]int{}
	for _, r := range all {
		by[r.Reason]++
	}
	return by, nil
}

// totalsJSON is `show --json`'s "totals": the run's whole-history figures.
type totalsJSON struct {
	RawTokens    int `json:"raw_tokens"`
	WindowTokens int `json:"window_tokens"`
	Budget       int `json:"budget"`
	// BudgetUsed is WindowTokens over Budget.
	BudgetUsed float64 `json:"budget_used"`
	// StaticNeed is what the system prompt and task take uncut; Static
	// takes it up to its cap (shares.static_cap).
	StaticNeed int        `json:"static_need"`
	Folds      countsJSON `json:"folds"`
	// FoldsWithRoom counts the folds made while the window had room, by
	// trigger (see fold.RoomReasons).
	FoldsWithRoom map[string]int `json:"folds_with_room"`
	Recalls       countsJSON     `json:"recalls"`
}

type countsJSON struct {
	Total int            `json:"total"`
	By    map[string]int `json:"by"`
}

func toCountsJSON(by map[string]int) countsJSON {
	c := countsJSON{By: by}
	for _, n := range by {
		c.Total += n
	}
	return c
}

func toTotalsJSON(g glance) totalsJSON {
	return totalsJSON{RawTokens: g.totals.RawTokens, WindowTokens: g.cx.Tokens, Budget: g.cx.Budget,
		BudgetUsed: math.Round(1000*float64(g.cx.Tokens)/float64(max(1, g.cx.Budget))) / 1000, StaticNeed: g.cx.StaticNeed,
		Folds: toCountsJSON(g.totals.Folds), FoldsWithRoom: g.totals.WithRoom, Recalls: toCountsJSON(g.recalls)}
}
