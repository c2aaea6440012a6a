package visualize_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/visualize"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
)

// hostile is journal text that would run script if it reached the page as
// markup.
const hostile = `</script><script>alert(1)</script><img src=x onerror=alert(2)>`

// fixture is synth-400 with hostile text in some thoughts and in a
// bookmark note, imported and folded under a small budget so that it has
// blocks at several levels, pinned iterations and recalls of each reason.
type fixture struct {
	eng  *memory.Engine
	run  journal.Run
	data *visualize.Data
	html []byte
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
	fixDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fix != nil {
		fix.eng.Close()
	}
	if fixDir != "" {
		os.RemoveAll(fixDir)
	}
	os.Exit(code)
}

// setup returns the shared fixture, built on first use: importing and
// folding 400 iterations takes seconds, and the tests only read it.
func setup(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = build() })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

func build() (*fixture, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "visualize-test-")
	if err != nil {
		return nil, err
	}
	fixDir = dir
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "journals", "synth-400.jsonl"))
	if err != nil {
		return nil, err
	}
	jpath := filepath.Join(dir, "journal.jsonl")
	if err := os.WriteFile(jpath, poison(src), 0o644); err != nil {
		return nil, err
	}
	eng, err := memory.Open(ctx, memory.Config{DBPath: filepath.Join(dir, "memory.db"), Budget: 8000})
	if err != nil {
		return nil, err
	}
	f := &fixture{eng: eng}
	res, _, err := eng.Import(ctx, jpath, journal.ImportOptions{})
	if err != nil {
		return f, err
	}
	if f.run, err = eng.Journal.Run(ctx, res.Run); err != nil {
		return f, err
	}
	if err := eng.Fold.AddBookmark(ctx, f.run, 120, "keep: "+hostile); err != nil {
		return f, err
	}
	if _, err := eng.Retrieve(ctx, f.run, recall.Query{Keywords: []string{"pytest", "failed"}, Limit: 3}); err != nil {
		return f, err
	}
	if f.data, err = visualize.Gather(ctx, eng, f.run, 0); err != nil {
		return f, err
	}
	f.html, err = visualize.HTML(f.data)
	return f, err
}

// render gathers the page's data of a run and renders it.
func render(t *testing.T, eng *memory.Engine, runID string) (*visualize.Data, []byte) {
	t.Helper()
	run, err := eng.Journal.Run(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := visualize.Gather(t.Context(), eng, run, 0)
	if err != nil {
		t.Fatal(err)
	}
	html, err := visualize.HTML(d)
	if err != nil {
		t.Fatal(err)
	}
	return d, html
}

// poison puts hostile text at the start of every 40th thought and of the
// last one, so that it reaches block titles and summaries and the Working
// partition.
func poison(src []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	lastThought := -1
	for i, l := range lines {
		if strings.Contains(l, `"type":"THOUGHT"`) {
			lastThought = i
		}
	}
	thoughts := 0
	for i, l := range lines {
		if strings.Contains(l, `"type":"THOUGHT"`) {
			thoughts++
			if thoughts%40 == 1 || i == lastThought {
				l = strings.Replace(l, `"content":"`, `"content":"`+hostile+` `, 1)
			}
		}
		fmt.Fprintln(&out, l)
	}
	return out.Bytes()
}
