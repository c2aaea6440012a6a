package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// Exit codes, stable for scripts.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is a mistake in how the command was called: exit code 2.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// interrupted is a cancelled command that knows what it kept: kept says
// it, for the message after "interrupted; ".
type interrupted struct {
	err  error
	kept string
}

func (i *interrupted) Error() string { return "interrupted; " + i.kept }
func (i *interrupted) Unwrap() error { return i.err }

// hinted attaches a suggestion to an error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// exitCode maps an error to the process exit code.
func exitCode(ctx context.Context, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return exitInterrupted
	default:
		return exitFailure
	}
}

// printError writes "Error: …" and, when there is a fix to suggest, "Try: …".
func printError(w io.Writer, err error) {
	var ir *interrupted
	switch {
	case errors.As(err, &ir):
		fmt.Fprintf(w, "Error: interrupted; %s\n", ir.kept)
		return
	case errors.Is(err, context.Canceled):
		// Every write is one transaction: the one cut short rolled back.
		fmt.Fprintln(w, "Error: interrupted; the write in progress, if any, was rolled back, and what was committed before it stands")
		return
	}
	fmt.Fprintf(w, "Error: %v\n", err)
	if h := hintFor(err); h != "" {
		fmt.Fprintf(w, "Try: %s\n", h)
	}
}

// hintFor finds the most specific suggestion for err.
func hintFor(err error) string {
	var h *hinted
	if errors.As(err, &h) {
		return h.hint
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.hint
	}
	var ie *journal.InputError
	if errors.As(err, &ie) {
		if ie.Hint != "" {
			return ie.Hint
		}
		return "fix that line (or message) and import again; nothing of this file was imported"
	}
	var ce *memory.ConfigError
	if errors.As(err, &ce) {
		return fmt.Sprintf("fix %s; every key it leaves out keeps its default, and `delta memory config` prints the settings in force", ce.File)
	}
	var cut *fold.RangeCutError
	if errors.As(err, &cut) {
		return fmt.Sprintf("drop --exact to widen the range to the block's boundaries, fold a range that holds iterations %d-%d whole, or unfold %s first", cut.First, cut.Last, cut.Block)
	}
	var re *journal.RangeError
	switch {
	case errors.As(err, &re) && re.Iterations > 0:
		return fmt.Sprintf("pick an iteration between 1 and %d", re.Iterations)
	case errors.Is(err, journal.ErrRunNotFound):
		return "list the runs with: delta memory runs"
	case errors.Is(err, journal.ErrNoRuns), errors.Is(err, memory.ErrNoDatabase):
		return "import a journal first: delta memory import .delta/<run_id>/journal.jsonl (or pass --db)"
	case errors.Is(err, memory.ErrLLMSettings):
		return "set OPENAI_API_KEY (or OPENAI_BASE_URL for a local endpoint), or pass --summarizer extractive"
	case errors.Is(err, fold.ErrBadRange) && strings.Contains(err.Error(), "already folded"):
		return "fold it at a higher --level, fold a wider range, or unfold the block first (delta memory unfold ID)"
	case errors.Is(err, fold.ErrFoldRace):
		return "another process folded part of this range meanwhile; run the fold again (it widens to the blocks that now cut the range)"
	case errors.Is(err, sqldb.ErrLocked):
		return "another delta process is writing to this database; retry when it is done"
	case errors.Is(err, sqldb.ErrSchemaTooNew):
		return "upgrade delta: go install github.com/delta-memory/delta-memory/cmd/delta@latest"
	case strings.Contains(err.Error(), "no such file or directory"):
		return "check the path"
	}
	return ""
}
