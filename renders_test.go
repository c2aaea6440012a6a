package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
)

const bundledJournal = "testdata/journals/synth-400.jsonl"

// renderingSum is the SHA-256 of the bundled journal's iterations as
// fold.RenderL0 and fold.SpokenLine render them (o200k_base, outputs
// bounded at 200 tokens). renderVersion went from "2" to "3" with the sum
// unchanged: an iteration shown alone came to render as fold.SpokenLine
// too, a choice renderings makes, not the two functions; to "4" when a
// tool output that is one JSON document came to render compacted.
const renderingSum = "ec08667f4eaeb83fb8bb7aae879befd27aca7c1f4543f97d9768ff98bd4fb162"

// TestRenderVersionNamesTheRendering fails when fold.RenderL0 or
// fold.SpokenLine renders the bundled journal differently from what
// renderVersion names: renderings kept by an older build would then be
// shown. Bump renderVersion and record the new sum.
func TestRenderVersionNamesTheRendering(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, err := Open(ctx, Config{DBPath: filepath.Join(t.TempDir(), "memory.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Journal.ImportFile(ctx, bundledJournal, journal.ImportOptions{Format: journal.FormatDelta})
	if err != nil {
		t.Fatal(err)
	}
	its, err := e.Journal.Iterations(ctx, res.Run, 1, res.Iterations, journal.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, it := range its {
		l0 := fold.RenderL0(e.Tokenizer, it, 200)
		fmt.Fprintf(h, "%d\n%s\n", l0.MarkdownTokens, l0.Markdown)
		if line, ok := fold.SpokenLine(it); ok {
			fmt.Fprintf(h, "spoken\n%s", line)
		}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); e.Tokenizer.Name() != "o200k_base" || sum != renderingSum {
		t.Fatalf("fold.RenderL0 renders the bundled journal (%s) as %s, not as renderVersion %q names (%s): bump renderVersion and set renderingSum",
			e.Tokenizer.Name(), sum, renderVersion, renderingSum)
	}
}
