package visualize_test

import (
	"context"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/visualize"
)

// TestPageWindowIsTheMemoryFile: with native iterations left to the agent
// runtime, the page's window is the memory file a sync writes (same
// tokens), and the page says which of the two figures it shows.
func TestPageWindowIsTheMemoryFile(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	d, err := visualize.Gather(ctx, f.eng, f.run, 5)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := f.eng.Context(ctx, f.run, memory.ContextOptions{Native: 5})
	if err != nil {
		t.Fatal(err)
	}
	if d.Window.Native != 5 || d.Window.Tokens != cx.Tokens {
		t.Errorf("page window: %d tokens, native %d; the memory file has %d", d.Window.Tokens, d.Window.Native, cx.Tokens)
	}
	if f.data.Window.Native != 0 || f.data.Window.Tokens == d.Window.Tokens {
		t.Errorf("the whole window (%d tokens, native %d) should differ from the memory file (%d)", f.data.Window.Tokens, f.data.Window.Native, d.Window.Tokens)
	}
	html, err := visualize.HTML(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The memory file: ", "newest iterations, which the agent runtime shows itself, are not included", "The whole window: "} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
