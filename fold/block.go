package fold

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Levels of detail. L0 (an iteration in full) is not a block.
const (
	L1 = 1 // one line per iteration
	L2 = 2 // a summary of a range
	L3 = 3 // a chapter over several L1/L2 blocks
	L4 = 4 // one line per phase
)

// Block kinds, one per level.
const (
	KindActions = "actions" // L1
	KindSummary = "summary" // L2
	KindChapter = "chapter" // L3
	KindPhase   = "phase"   // L4
)

// KindOf returns the kind of block made at a level.
func KindOf(level int) string {
	switch level {
	case L1:
		return KindActions
	case L2:
		return KindSummary
	case L3:
		return KindChapter
	default:
		return KindPhase
	}
}

// Triggers: why a block was made.
const (
	TriggerPressure  = "pressure"
	TriggerInterval  = "interval"
	TriggerMilestone = "milestone"
	TriggerCascade   = "cascade"
	TriggerManual    = "manual"
)

// Block is a folded range of iterations at one level.
type Block struct {
	ID    string `json:"id"`
	Run   string `json:"run"`
	Level int    `json:"level"`
	Kind  string `json:"kind"`
	// First and Last are the iterations covered, inclusive.
	First int `json:"first"`
	Last  int `json:"last"`
	// Start and End span the covered iterations' timestamps.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`

	Title        string   `json:"title"`
	Content      string   `json:"content"`
	Outcome      string   `json:"outcome"`
	Keywords     []string `json:"keywords"`
	Entities     []string `json:"entities"`
	StateChanges []string `json:"state_changes"`
	Errors       []string `json:"errors"`
	// Pinned lists the iterations the block keeps in detail (protected).
	Pinned []int `json:"pinned"`

	Importance     float64 `json:"importance"`
	AccessCount    int     `json:"access_count"`
	LastAccessIter int     `json:"last_access_iter"`
	// Parent is the block that absorbed this one, "" if none.
	Parent   string `json:"parent"`
	Visible  bool   `json:"visible"`
	Unfolded bool   `json:"unfolded"`

	Trigger    string `json:"trigger"`
	Summarizer string `json:"summarizer"`
	// Usage is the window's usage (its tokens if nothing more were folded,
	// over the room) when the scheduler made the block: under 1, the
	// window still had room and the trigger says why it folded. 0 for a
	// block folded by hand or made before it was recorded.
	Usage float64 `json:"usage,omitempty"`
	// LLM is what making the block cost in LLM calls and tokens (Failures
	// and Amended are not stored per block; see SelfCheck).
	LLM LLMUsage `json:"llm"`
	// SelfCheck is the outcome of the LLM self-check (Summary.SelfCheck).
	SelfCheck string `json:"self_check"`
	// AwaitingLLM says the block holds its extractive summary until the
	// model's replaces it (Folder.Defer, Folder.Upgrade).
	AwaitingLLM bool `json:"awaiting_llm"`
	// Tokens is the size of the block's rendering (Render), counted with
	// the engine's tokenizer.
	Tokens int `json:"tokens"`
	// CreatedIter is the run's iteration count when the block was made, and
	// CreatedAt the journal time of that moment (the run's newest event):
	// journal time, not the wall clock, so folding stays deterministic.
	CreatedIter int       `json:"created_iter"`
	CreatedAt   time.Time `json:"created_at"`
}

// Range returns "A-B" for the covered iterations.
func (b *Block) Range() string {
	if b.First == b.Last {
		return fmt.Sprint(b.First)
	}
	return fmt.Sprintf("%d-%d", b.First, b.Last)
}

// Len is the number of iterations covered.
func (b *Block) Len() int { return b.Last - b.First + 1 }

// ParseBlockID reads the level and range out of a block id made by the
// folder ("L2-100-199", or "L2-100-199.2" for a range folded again),
// without a read of the block; ok is false for an id of another form.
func ParseBlockID(id string) (level, first, last int, ok bool) {
	rest, found := strings.CutPrefix(id, "L")
	if !found {
		return 0, 0, 0, false
	}
	rest, n, folded := strings.Cut(rest, ".")
	if folded {
		if k, err := strconv.Atoi(n); err != nil || k < 2 {
			return 0, 0, 0, false
		}
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var v [3]int
	for i, p := range parts {
		k, err := strconv.Atoi(p)
		if err != nil || k < 0 || strconv.Itoa(k) != p {
			return 0, 0, 0, false
		}
		v[i] = k
	}
	if v[0] < 1 || v[1] > v[2] {
		return 0, 0, 0, false
	}
	return v[0], v[1], v[2], true
}

// blockID names a block deterministically from what it covers, so that the
// same input folds into the same ids. n disambiguates a range folded again
// at the same level after an unfold.
func blockID(level, first, last, n int) string {
	id := fmt.Sprintf("L%d-%d-%d", level, first, last)
	if n > 1 {
		id += fmt.Sprintf(".%d", n)
	}
	return id
}
