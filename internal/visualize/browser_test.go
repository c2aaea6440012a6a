package visualize_test

import (
	"context"
	"flag"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/visualize"
	"github.com/delta-memory/delta-memory/journal"
)

// screenshot copies the browser test's screenshot to a file, to look at
// while working on the page: go test ./internal/visualize -run Browser -screenshot /tmp/viz.png
var screenshot = flag.String("screenshot", "", "copy the browser test's screenshot to this PNG file")

// browserPath finds a Chromium or Chrome, or "".
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestPageInBrowser opens the page of the fixture in headless Chromium from
// a file:// URL, as a user would: it must load without console errors or
// uncaught exceptions, run no journal text as script, and show a block's
// summary when the block is clicked in the tree.
func TestPageInBrowser(t *testing.T) {
	path := browserPath()
	if path == "" {
		t.Skip("no chromium or chrome on PATH: install one (Debian: apt-get install -y chromium) to run the browser test")
	}
	f := setup(t)
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "memory.html")
	if err := os.WriteFile(htmlPath, f.html, 0o644); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("user-data-dir", filepath.Join(dir, "profile")))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	ctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(ctx); err != nil { // start the browser before subscribing
		t.Fatalf("start %s: %v", path, err)
	}

	// Any dialog means journal text ran as script; dismiss it so the page
	// does not block, and fail.
	var mu sync.Mutex
	var dialogs []string
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	dialogEvents := chromedp.Events(dctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogEvents {
			if err != nil {
				return
			}
			mu.Lock()
			dialogs = append(dialogs, ev.Message)
			mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	messages := chromedp.Console(ctx)

	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+htmlPath),
		chromedp.WaitVisible(chromedp.CSS("#tree .node")),
	); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tree .node").length`))
	if err != nil || nodes != len(f.data.Blocks) {
		t.Fatalf("the tree has %d nodes for %d blocks (%v)", nodes, len(f.data.Blocks), err)
	}

	// Click a visible block, one whose summary holds the hostile text if
	// there is one: it must show as text, byte for byte.
	var pick visualize.Block
	for _, b := range f.data.Blocks {
		if b.State != visualize.StateVisible {
			continue
		}
		if pick.ID == "" || strings.Contains(b.Content, hostile) && !strings.Contains(pick.Content, hostile) {
			pick = b
		}
	}
	if pick.ID == "" {
		t.Fatal("the fixture has no visible block")
	}
	node := chromedp.CSS(`#tree .node[data-block="` + pick.ID + `"]`)
	if err := chromedp.Do(ctx, chromedp.Click(node), chromedp.WaitVisible(chromedp.CSS("#detail .summary"))); err != nil {
		t.Fatalf("click block %s: %v", pick.ID, err)
	}
	summary, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#detail .summary").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if summary != pick.Content {
		t.Errorf("the detail panel of %s shows\n%q\nwant its summary\n%q", pick.ID, summary, pick.Content)
	}
	selected, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tree .node.sel").length + document.querySelectorAll("#timeline .mark").length`))
	if err != nil || selected < 2 {
		t.Errorf("the block is not marked in the tree and on the timeline (%d marks, %v)", selected, err)
	}

	// Open the Working partition, where the newest (hostile) thought shows.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.part[data-partition="working"] > summary`))); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "memory.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	consoleClean(t, ctx, messages)

	// A run with nothing to show yet draws its empty states without errors.
	messages = chromedp.Console(ctx)
	emptyPath := filepath.Join(dir, "empty.html")
	if err := os.WriteFile(emptyPath, emptyPage(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+emptyPath), chromedp.WaitVisible(chromedp.CSS("#tree li"))); err != nil {
		t.Fatalf("load the empty page: %v", err)
	}
	consoleClean(t, ctx, messages)

	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("journal text ran as script: dialogs %q", dialogs)
	}
}

// consoleClean fails the test for each error, warning or uncaught exception
// in messages, up to a marker message it writes last.
func consoleClean(t *testing.T, ctx context.Context, messages iter.Seq2[chromedp.ConsoleMessage, error]) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`console.log("visualize-test-end")`)); err != nil {
		t.Fatal(err)
	}
	for m, err := range messages {
		if err != nil {
			t.Fatal(err)
		}
		if m.Text == "visualize-test-end" {
			return
		}
		if m.IsException() || m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
			t.Errorf("console %s (%s:%d)", m, m.URL, m.Line+1)
		}
	}
}

// emptyPage renders a run that has a task and no iteration yet.
func emptyPage(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	j := filepath.Join(dir, "journal.jsonl")
	if err := os.WriteFile(j, []byte(`{"seq":1,"timestamp":"2025-10-02T10:00:00.000Z","type":"RUN_START","payload":{"run_id":"fresh","task":"just started"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := memory.Open(t.Context(), memory.Config{DBPath: filepath.Join(dir, "memory.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, _, err := eng.Import(t.Context(), j, journal.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, html := render(t, eng, res.Run)
	return html
}
