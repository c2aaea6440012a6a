package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/delta-memory/delta-memory/journal"
)

// ErrNoTranscripts is returned, wrapped, by LoadTranscripts when a
// directory holds no *.json or *.jsonl file.
var ErrNoTranscripts = errors.New("no transcripts")

// Transcript is one agent run to replay: its journal events, in seq order.
type Transcript struct {
	// Name is the file's name, with #task_id (or #index) when the file
	// holds several transcripts.
	Name string
	// Format is journal.FormatOpenAI or journal.FormatDelta.
	Format string
	Events []journal.Event
}

// LoadTranscripts reads the transcripts of a file, or of every *.json and
// *.jsonl file in a directory, in name order. A file holds OpenAI chat
// messages (a JSON array, {"messages": [...]}, or JSONL), a JSON array of
// objects each with a "traj" or "messages" array (tau-bench's shape; JSONL
// of such objects too), or a Delta journal (JSONL events). Errors name the
// file, and the line or message where the input is wrong
// (*journal.InputError).
func LoadTranscripts(path string) ([]Transcript, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".json" || ext == ".jsonl") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: %w: the directory has no *.json or *.jsonl file", path, ErrNoTranscripts)
		}
	}
	var out []Transcript
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ts, err := parseTranscripts(filepath.Base(f), data)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// parseTranscripts reads the transcripts of one file; name is the file's
// name, for the transcripts' names and for errors.
func parseTranscripts(name string, data []byte) ([]Transcript, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &journal.InputError{File: name, Message: -1, Err: errors.New("empty file: no transcript")}
	}
	firstLine, _, _ := bytes.Cut(trimmed, []byte{'\n'})
	var head map[string]json.RawMessage
	lineObject := trimmed[0] == '{' && json.Unmarshal(firstLine, &head) == nil
	switch {
	case lineObject && head["seq"] != nil && head["type"] != nil:
		return deltaTranscript(name, trimmed)
	case trimmed[0] == '[':
		var elems []json.RawMessage
		if json.Unmarshal(trimmed, &elems) == nil && len(elems) > 0 && transcriptMessages(elems[0]) != nil {
			return objectTranscripts(name, elems)
		}
	case trimmed[0] == '{':
		if transcriptMessages(trimmed) != nil {
			return objectTranscripts(name, []json.RawMessage{trimmed})
		}
		if lineObject && transcriptMessages(firstLine) != nil {
			var elems []json.RawMessage
			for _, l := range bytes.Split(trimmed, []byte{'\n'}) {
				if l = bytes.TrimSpace(l); len(l) > 0 {
					elems = append(elems, l)
				}
			}
			return objectTranscripts(name, elems)
		}
	}
	events, err := journal.OpenAIEvents(name, data)
	if err != nil {
		return nil, err
	}
	return []Transcript{{Name: name, Format: journal.FormatOpenAI, Events: events}}, nil
}

// transcriptMessages returns the "traj" or "messages" array of an object
// that carries one, else nil.
func transcriptMessages(raw []byte) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	for _, k := range []string{"traj", "messages"} {
		if v := bytes.TrimSpace(obj[k]); len(v) > 0 && v[0] == '[' {
			return v
		}
	}
	return nil
}

// objectTranscripts reads one transcript from each object's "traj" or
// "messages" array. They are named by their task_id when every object has
// a distinct one, else by their index; a lone object without one takes
// the file's name.
func objectTranscripts(name string, elems []json.RawMessage) ([]Transcript, error) {
	ids := make([]string, len(elems))
	seen := map[string]bool{}
	byID := true
	for i, raw := range elems {
		var obj struct {
			TaskID json.RawMessage `json:"task_id"`
		}
		_ = json.Unmarshal(raw, &obj)
		id := strings.Trim(string(bytes.TrimSpace(obj.TaskID)), `"`)
		if id == "" || id == "null" || seen[id] {
			byID = false
		}
		seen[id], ids[i] = true, id
	}
	out := make([]Transcript, 0, len(elems))
	for i, raw := range elems {
		tn := fmt.Sprintf("%s#%d", name, i)
		switch {
		case byID:
			tn = name + "#" + ids[i]
		case len(elems) == 1:
			tn = name
		}
		msgs := transcriptMessages(raw)
		if msgs == nil {
			return nil, &journal.InputError{File: name, Message: -1, Err: fmt.Errorf("transcript %d has no \"traj\" or \"messages\" array", i)}
		}
		events, err := journal.OpenAIEvents(tn, msgs)
		if err != nil {
			return nil, err
		}
		out = append(out, Transcript{Name: tn, Format: journal.FormatOpenAI, Events: events})
	}
	return out, nil
}

// deltaTranscript reads a Delta journal: one event per line.
func deltaTranscript(name string, data []byte) ([]Transcript, error) {
	t := Transcript{Name: name, Format: journal.FormatDelta}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := journal.ParseDeltaLine(line)
		if err != nil {
			return nil, &journal.InputError{File: name, Line: i + 1, Message: -1, Err: err}
		}
		t.Events = append(t.Events, e)
	}
	return []Transcript{t}, nil
}
