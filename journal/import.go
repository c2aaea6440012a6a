package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FormatAuto asks ImportFile to detect the format from the file's content.
const FormatAuto = "auto"

// ImportOptions tunes ImportFile.
type ImportOptions struct {
	// RunID overrides the run the file is imported into. Without it, a Delta
	// journal's run comes from RUN_START (else the directory name) and an
	// OpenAI transcript's from the file name.
	RunID string
	// Format is FormatAuto (or ""), FormatDelta or FormatOpenAI.
	Format string
	// Progress, if set, is called now and then with bytes read and the size.
	Progress func(done, total int64)
}

// ImportResult says what one file's import stored.
type ImportResult struct {
	File          string `json:"file"`
	Run           string `json:"run"`
	Format        string `json:"format"`
	Added         int    `json:"added"`
	Skipped       int    `json:"skipped"`
	Iterations    int    `json:"iterations"`
	NewIterations int    `json:"new_iterations"`
	LastSeq       int64  `json:"last_seq"`
	// Resumed is set when the import seeked past lines it had read before.
	Resumed bool `json:"resumed"`
	// Seeked counts the events of the lines a resumed import seeked past:
	// stored by earlier imports, and not read again. Skipped+Seeked is
	// what the file holds that was stored already.
	Seeked int `json:"seeked"`
	// PartialLine is set when the file ended in a line without a newline,
	// which was left for the next import.
	PartialLine bool `json:"partial_line"`
}

func (r *ImportResult) setAppend(a AppendResult) {
	r.Added += a.Added
	r.Skipped += a.Skipped
	r.Iterations = a.Iterations
	r.NewIterations = a.NewIterations
	r.LastSeq = a.LastSeq
}

// ImportFile imports a journal file into the store in one transaction: a
// failure leaves the database as it was. Events already stored (by seq) are
// skipped, so importing a file again adds only what was appended to it.
// Bad content yields an *InputError naming the line or message.
func (s *Store) ImportFile(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{File: path}, fmt.Errorf("open journal: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return ImportResult{File: path}, &InputError{File: path, Message: -1, Err: errors.New("is a directory"),
			Hint: "name the journal file in it, e.g. " + filepath.Join(path, "journal.jsonl")}
	}
	format := opts.Format
	if format == "" || format == FormatAuto {
		if format, err = detectFormat(f, path); err != nil {
			return ImportResult{File: path}, err
		}
	}
	switch format {
	case FormatDelta:
		runID := opts.RunID
		if runID == "" {
			if runID, err = deltaRunID(f, path); err != nil {
				return ImportResult{File: path}, err
			}
		}
		return s.importDelta(ctx, f, path, runID, opts.Progress)
	case FormatOpenAI:
		data, err := io.ReadAll(f)
		if err != nil {
			return ImportResult{File: path}, fmt.Errorf("read %s: %w", path, err)
		}
		runID := opts.RunID
		if runID == "" {
			runID = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		return s.ImportOpenAI(ctx, runID, path, data)
	default:
		return ImportResult{File: path}, fmt.Errorf("unknown format %q (want auto, delta or openai)", format)
	}
}

// ImportOpenAI imports an OpenAI chat transcript (any shape ParseOpenAI
// accepts) into a run, in one transaction. name is used in error messages.
func (s *Store) ImportOpenAI(ctx context.Context, runID, name string, data []byte) (ImportResult, error) {
	res := ImportResult{File: name, Run: runID, Format: FormatOpenAI}
	msgs, err := ParseOpenAI(name, data)
	if err != nil {
		return res, err
	}
	events, err := openAIEvents(msgs)
	if err != nil {
		return res, &InputError{File: name, Message: -1, Err: err}
	}
	if len(events) == 0 {
		// As an empty file: nothing to make a run of.
		return res, &InputError{File: name, Message: -1, Err: errors.New("no messages"), Hint: "nothing to import yet"}
	}
	err = s.update(ctx, runID, func(tx *writeTx) error {
		a, err := s.newAppender(ctx, tx, runID, FormatOpenAI)
		if err != nil {
			return err
		}
		for i, e := range events {
			if _, err := a.add(ctx, e); err != nil {
				var pe *PayloadError
				if errors.As(err, &pe) {
					return messageError(name, i, err)
				}
				return err
			}
		}
		ar, err := a.finish(ctx)
		res.setAppend(ar)
		return err
	})
	return res, err
}

// detectFormat tells a Delta journal from an OpenAI transcript by its first
// JSON value: an array, or an object with "role" or "messages", is OpenAI; an
// object with "seq" and "type" is Delta.
func detectFormat(f *os.File, path string) (string, error) {
	defer f.Seek(0, io.SeekStart)
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	head = bytes.TrimSpace(head[:n])
	hint := "pass --format delta or --format openai"
	if len(head) == 0 {
		return "", &InputError{File: path, Message: -1, Err: errors.New("empty file"), Hint: "nothing to import yet"}
	}
	if head[0] == '[' {
		return FormatOpenAI, nil
	}
	if head[0] != '{' {
		return "", &InputError{File: path, Line: 1, Message: -1, Err: errors.New("not JSON: cannot tell the format"), Hint: hint}
	}
	first := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		first = head[:i]
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(first, &keys) == nil {
		_, seq := keys["seq"]
		_, typ := keys["type"]
		_, role := keys["role"]
		_, msgs := keys["messages"]
		switch {
		case seq && typ:
			return FormatDelta, nil
		case role || msgs:
			return FormatOpenAI, nil
		}
		return "", &InputError{File: path, Line: 1, Message: -1, Err: errors.New(`cannot tell the format: the first object has neither "seq"/"type" (Delta) nor "role"/"messages" (OpenAI)`), Hint: hint}
	}
	// A pretty-printed object spanning lines: only OpenAI's {"messages": …} is.
	if bytes.Contains(head, []byte(`"messages"`)) {
		return FormatOpenAI, nil
	}
	// A Delta journal whose first event is still being written.
	if !bytes.Contains(head, []byte{'\n'}) && bytes.Contains(first, []byte(`"seq"`)) {
		return FormatDelta, nil
	}
	return "", &InputError{File: path, Line: 1, Message: -1, Err: errors.New("line 1 is not a complete JSON object"), Hint: hint}
}
