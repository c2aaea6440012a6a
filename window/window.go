// Package window composes an agent's context window from the journal and
// its folds: six partitions under a token budget, and the run's state as
// of the summaries between Short-term and Working, rendered as Markdown, as
// OpenAI chat messages, or as JSON for inspection.
//
// Order serves prompt caching and chronology: Static, Long-term, Short-term,
// the run's state, Working (oldest to newest), then Retrieved and Dynamic,
// with the current goal last. Outside a question to memory, the recalls and
// the Short-term blocks made since the last chapter or cascade stand in the
// run's timeline among Working's iterations (timeline.go), so that between
// chapters the window changes only from its oldest Working iteration a fold
// takes, or at its end, and provider prompt caches keep hitting on the rest.
package window

import (
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/scoring"
)

// Partition names, as they appear in JSON.
const (
	Static    = "static"
	LongTerm  = "long_term"
	ShortTerm = "short_term"
	Working   = "working"
	Retrieved = "retrieved"
	Dynamic   = "dynamic"
	// State holds, once the run has folded, its unresolved errors and the
	// state of its files as of the newest folded iteration (state.go).
	State = "state"
)

// Section is one piece of a partition, with where it came from: a block
// (block:<id>), an iteration (iteration:97), the run's task (run.task), …
type Section struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Tokens  int    `json:"tokens"`
	Content string `json:"content"`
	// Messages are the native chat messages of a Working iteration.
	Messages []fold.Message `json:"-"`
	// MessageTokens counts Messages when set.
	MessageTokens int `json:"-"`
	// AsOf is the iteration a State section's state stood at: the newest
	// a fold covers (0 for any other section).
	AsOf int `json:"as_of,omitempty"`
	// InTimeline says a Short-term block is written in the run's timeline,
	// where its first iteration was, not at Short-term's end: it was made
	// since the last chapter or cascade (Options.SummariesLaidOut).
	InTimeline bool `json:"in_timeline,omitempty"`
	// Bare says the section is written without its "### …" heading: its
	// content names its iterations (Recalled.Bare).
	Bare bool `json:"-"`
	// at places the section in the run's timeline: a Working iteration's
	// number, the iteration a recall shown outside a focused window comes
	// after, or the first iteration of a Short-term block made since the
	// window was last laid out (0 for a block in Short-term's place).
	at int
	// made is the iteration at which a block in the timeline was made.
	made int
}

// Partition is a region of the window with a token budget.
type Partition struct {
	Name     string    `json:"name"`
	Budget   int       `json:"budget"`
	Tokens   int       `json:"tokens"`
	Sections []Section `json:"sections"`
	// perSection is what each section costs beyond its Markdown: a recall
	// in the timeline is a chat message of its own (timelineFraming).
	perSection int
	// under, when set, is the partition whose heading p's sections are
	// written under: the recalls in the timeline go under Working's.
	under string
}

// Context is a compiled context window.
type Context struct {
	Budget     int            `json:"budget"`
	Tokens     int            `json:"tokens"`
	Tokenizer  string         `json:"tokenizer"`
	Partitions []Partition    `json:"partitions"`
	Messages   []fold.Message `json:"messages"`
	// Omitted lists what did not fit: bookmarked iterations whose text was
	// left out, Working iterations shown as one line.
	Omitted []string `json:"omitted,omitempty"`
	// Recalls says how each offered recall showed, by its Source.
	Recalls map[string]string `json:"recalls,omitempty"`
	// Focused says the window was built for a question to memory
	// (Options.Focus): Retrieved first, the summaries by their titles.
	Focused bool `json:"focused,omitempty"`
	// StaticNeed is what the Static partition needs uncut, in tokens; when
	// it is more than the static share, Static took up to the static cap
	// and the other shares shrank (fold.Config.WithStatic). Shares are the
	// shares the window was laid out with.
	StaticNeed int         `json:"static_need"`
	Shares     fold.Shares `json:"-"`
	// StaticShare is Static's share as configured, before the layout.
	StaticShare float64 `json:"-"`
	// Native is how many newest iterations were left out for the caller
	// to show itself (Options.Native): with Native > 0 the window is the
	// memory file, not all the model sees.
	Native int `json:"native,omitempty"`

	markdown string
	spans    []span
	// timeline says the recalls are laid out among Working's iterations
	// (an unfocused window; timeline.go), not after them.
	timeline  bool
	focusRoom int
}

// Markdown returns the window as one Markdown document.
func (c *Context) Markdown() string { return c.markdown }

// Options tune Build.
type Options struct {
	Config    fold.Config
	Tokenizer scoring.Tokenizer
	// SystemPrompt overrides the run's system prompt when set.
	SystemPrompt string
	// Recalled are the active recalls, most wanted first (newest, then
	// highest-scoring). The Retrieved partition shows each in full while
	// that fits, else as one line per iteration, and names the rest.
	Recalled []Recalled
	// Native is the number of newest iterations the caller shows itself,
	// as Delta Engine's journal source does next to `delta memory sync`:
	// they are left out of Working, and the rest of the window is as usual.
	Native int
	// LaidOut is the iteration from which the recalls of an unfocused
	// window are laid out in its timeline (recall.Config.FadeFrom): the
	// last chapter or cascade, or the last time expired recalls faded.
	LaidOut int
	// SummariesLaidOut is the iteration at which the last chapter or
	// cascade was made (fold.Store.LayoutFold), 0 before any. Outside a
	// focused window, the Short-term blocks made since show in the run's
	// timeline, where their first iteration was, and the run's state is
	// shown as of the newest iteration the blocks made by then cover.
	SummariesLaidOut int
	// Focus says the current step asks memory a question (an explicit
	// recall made at the newest iteration): the Retrieved partition is
	// fitted before Long-term, Short-term and Working and may take all of
	// the budget but Static, Dynamic and the newest iteration
	// (Context.FocusRoom); the others keep what is left, up to their
	// shares, the blocks down to their first lines.
	Focus bool
	// Subtask, when set, builds a sub-agent's context instead of the
	// run's window: Static holds the run's task and the subtask, the
	// Retrieved partition the Recalled passages (found for the subtask)
	// with all the room Static and Dynamic leave, Dynamic the runtime
	// state; the summaries and the Working iterations are left out.
	Subtask string
}

// Recalled is a recall offered to the Retrieved partition.
type Recalled struct {
	// Name heads the section: what was recalled and why.
	Name string
	// Source identifies the recall ("recall:12").
	Source string
	// Full is the recalled iterations in full (L0); Lines is one line per
	// iteration (L1), shown when Full does not fit.
	Full  string
	Lines string
	// FullTokens and LinesTokens, when set, are the texts' token counts,
	// so that the fitter need not count them again.
	FullTokens  int
	LinesTokens int
	// Wider, when set, is Full with its tool output bounded as Working
	// bounds an iteration's (fold.Config.OutputCap) rather than as recalls
	// are: a recall of one iteration made since the window was last laid
	// out, whose output Full cuts. Outside a focused window it shows
	// instead of Full while what the window leaves once Working is fitted
	// holds it.
	Wider       string
	WiderTokens int
	// Fitted, when set, is Full with its tool output bounded by what the
	// rest of the recall leaves of the room a recall may take whole in
	// the run's timeline (RecallTextRoom): a recall of one iteration whose
	// output Full cuts. Outside a focused window a recall arrives in the
	// timeline fitted while the room of the step that made it holds it
	// beside that step's other recalls, else as Full.
	Fitted       string
	FittedTokens int
	// Covers is the range of iterations the recall holds. A focused
	// window (Options.Focus) leaves a Working iteration out when a recall
	// shown in the Retrieved partition covers it, so as to show nothing
	// twice.
	Covers [2]int
	// Since is the iteration that made the recall. Outside a focused
	// window the recall shows in the run's timeline, after the Working
	// iteration that was newest in the window then (Since less
	// Options.Native), so that a new recall is appended to the window.
	Since int
	// Carried says the recall was made before the window was last laid
	// out again: before the last chapter or cascade, or the last time
	// expired recalls faded (recall.Config.FadeFrom). The prefix broke there, so the timeline
	// chooses its recalls afresh from that point (fitTimeline).
	Carried bool
	// Lingering says the recall has expired and waits for the window to be
	// laid out again to fade; the timeline's trace of recalls left out
	// does not name it.
	Lingering bool
	// HeldBy, when set, is the source of an earlier recall of the same
	// iterations: while that one shows, or shows through the one that
	// holds it, the timeline shows it for both; else this one shows on
	// its own.
	HeldBy string
	// Bare lets the section go without a heading when the text it shows
	// names its iterations itself (SelfNamed): a hit of a question to
	// memory after the first, whose heading would only say its range
	// again. The blank line before it still sets it apart.
	Bare bool
}

// How a recall showed in the window.
const (
	ShownFull    = "full"
	ShownLines   = "lines"
	ShownOmitted = "omitted"
)
