package simulate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// Chunk is one iteration's worth of Delta journal lines, each ending in a
// newline: what the agent runtime appends between two LLM calls.
type Chunk []byte

// Source is a journal split into the chunks a replay appends one by one.
type Source struct {
	// Run is the run id the replay imports into.
	Run string
	// Format is the input's format: journal.FormatDelta or FormatOpenAI.
	Format string
	// Chunks are the iterations as an import groups them (see
	// journal's grouping rules): each starts at a THOUGHT, or at the
	// USER_MESSAGE that opens its iteration; the first also holds what came
	// before it (RUN_START, the task), and the last what came after.
	Chunks []Chunk
}

// Load reads a Delta journal or OpenAI chat transcript (format "auto", ""
// or journal.FormatDelta / FormatOpenAI) and splits it into iteration
// chunks of Delta lines. OpenAI messages are converted to the events an
// import would store. Bad input is a *journal.InputError naming the place.
func Load(path, format string) (*Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if format == "" || format == journal.FormatAuto {
		format = detect(data)
	}
	var events []journal.Event
	switch format {
	case journal.FormatDelta:
		if events, err = deltaEvents(path, data); err != nil {
			return nil, err
		}
	case journal.FormatOpenAI:
		if events, err = journal.OpenAIEvents(path, data); err != nil {
			return nil, err
		}
		stamp(events)
	default:
		return nil, fmt.Errorf("simulate %s: unknown format %q (want auto, delta or openai)", path, format)
	}
	src := &Source{Run: runID(path, events), Format: format}
	src.Chunks = split(events)
	if len(src.Chunks) == 0 {
		return nil, &journal.InputError{File: path, Message: -1, Err: fmt.Errorf("no events to replay")}
	}
	return src, nil
}

// detect tells a Delta journal (lines of {"seq":…,"type":…}) from OpenAI
// messages by the first line's keys.
func detect(data []byte) string {
	first, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	if bytes.HasPrefix(first, []byte("{")) && bytes.Contains(first, []byte(`"seq"`)) && bytes.Contains(first, []byte(`"type"`)) {
		return journal.FormatDelta
	}
	return journal.FormatOpenAI
}

// deltaEvents parses every complete line; a last line without a newline is
// an append in progress and left out, as an import would.
func deltaEvents(path string, data []byte) ([]journal.Event, error) {
	var out []journal.Event
	line := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		raw := data[:i]
		data = data[i+1:]
		line++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		e, err := journal.ParseDeltaLine(raw)
		if err != nil {
			return nil, &journal.InputError{File: path, Line: line, Err: err}
		}
		out = append(out, e)
	}
	return out, nil
}

// stamp gives converted OpenAI events timestamps one second apart, as a
// Delta journal has them.
func stamp(events []journal.Event) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range events {
		events[i].Timestamp = t0.Add(time.Duration(i) * time.Second)
	}
}

// runID is RUN_START's run id, else the journal's directory name (Delta's
// .delta/<run_id>/journal.jsonl), else the file name.
func runID(path string, events []journal.Event) string {
	for _, e := range events {
		if e.Type != journal.TypeRunStart {
			continue
		}
		if rs, err := e.RunStart(); err == nil && rs.RunID != "" {
			return rs.RunID
		}
	}
	base := filepath.Base(path)
	if base == "journal.jsonl" {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// split groups events into one chunk per iteration, by the rules an
// import groups them with: a user message after the first thought opens
// the next iteration, which its thought then joins; any other thought
// opens one. A chunk thus ends where its iteration does, and the replay's
// iteration numbers follow the run's, one by one.
func split(events []journal.Event) []Chunk {
	var chunks []Chunk
	var cur []byte
	seenThought := false // the run has a thought: iterations have begun
	thought := false     // the open chunk has its thought
	for _, e := range events {
		opens := false
		switch e.Type {
		case journal.TypeThought:
			opens = seenThought && thought
			seenThought, thought = true, true
		case journal.TypeUserMessage:
			if opens = seenThought && thought; opens {
				thought = false
			}
		}
		if opens {
			chunks = append(chunks, cur)
			cur = nil
		}
		cur = journal.AppendDelta(cur, e)
		cur = append(cur, '\n')
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}
