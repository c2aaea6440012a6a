package visualize_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/visualize"
)

func TestPageSelfContained(t *testing.T) {
	f := setup(t)
	page := string(f.html)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)url\(\s*["']?\s*(https?:)?//`),
		regexp.MustCompile(`(?i)<(link|script)[^>]*\b(src|href)\s*=\s*["']?[^"'\s>]*\.(js|css|woff2?)`),
	} {
		if m := re.FindString(page); m != "" {
			t.Errorf("page fetches from outside: %q", m)
		}
	}
	if !strings.Contains(page, `http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`) {
		t.Error("page has no Content-Security-Policy forbidding fetches")
	}
}

func TestPageDeterministic(t *testing.T) {
	f := setup(t)
	_, html := render(t, f.eng, f.run.ID)
	if !bytes.Equal(html, f.html) {
		t.Fatal("two renders of the same state differ")
	}
}

// TestPageEscapes checks that hostile journal text stays data: it appears
// in the page only inside the JSON element, with its markup escaped, and
// the JSON holds it intact.
func TestPageEscapes(t *testing.T) {
	f := setup(t)
	page := string(f.html)
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("page has %d <script elements, want 2 (data and code)", n)
	}
	if strings.Contains(page, "alert(1)</script>") || strings.Contains(page, "<img src=x") {
		t.Error("hostile journal text reached the page unescaped")
	}
	start := strings.Index(page, `<script type="application/json" id="memory-data">`)
	end := strings.Index(page[start:], "</script>")
	if start < 0 || end < 0 {
		t.Fatal("no data element")
	}
	raw := page[start+len(`<script type="application/json" id="memory-data">`) : start+end]
	var d visualize.Data
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatalf("data element is not JSON: %v", err)
	}
	if !strings.Contains(raw, `\u003c/script\u003e\u003cscript\u003ealert(1)`) {
		t.Error("hostile text is not in the data, escaped; the fixture lost it?")
	}
	seen := 0
	for _, b := range d.Blocks {
		if strings.Contains(b.Title+b.Content, "alert(1)") {
			seen++
		}
	}
	if seen == 0 || !strings.Contains(d.Bookmarks[0].Note, "</script><script>alert(1)</script>") {
		t.Errorf("hostile text did not survive the round trip: %d blocks hold it, bookmarks %v", seen, d.Bookmarks)
	}
}

func TestGatherShowsTheWindow(t *testing.T) {
	f := setup(t)
	d := f.data
	if d.Run.Iterations != 400 || len(d.Blocks) == 0 || len(d.Window.Partitions) != 7 {
		t.Fatalf("run %+v, %d blocks, %d partitions", d.Run, len(d.Blocks), len(d.Window.Partitions))
	}
	// The timeline covers every iteration once, in order.
	next := 1
	shades := map[string]int{}
	for _, s := range d.Timeline {
		if s.First != next || s.Last < s.First {
			t.Fatalf("segment %+v after iteration %d", s, next-1)
		}
		next = s.Last + 1
		shades[s.Shade] += s.Last - s.First + 1
	}
	if next != d.Run.Iterations+1 {
		t.Fatalf("timeline ends at %d", next-1)
	}
	for _, k := range []string{visualize.ShadeL0, visualize.ShadePinned} {
		if shades[k] == 0 {
			t.Errorf("no %s iterations: %v", k, shades)
		}
	}
	folded := 0
	for _, k := range []string{visualize.ShadeL1, visualize.ShadeL2, visualize.ShadeL3, visualize.ShadeL4} {
		folded += shades[k]
	}
	if folded == 0 {
		t.Errorf("nothing folded: %v", shades)
	}
	// Every visible block's source is in the window's Long- or Short-term
	// partition, and every block in the tree is reachable from a root.
	inWindow := map[string]bool{}
	for _, p := range d.Window.Partitions {
		for _, s := range p.Sections {
			inWindow[s.Source] = true
		}
	}
	byID := map[string]visualize.Block{}
	for _, b := range d.Blocks {
		byID[b.ID] = b
	}
	reached := 0
	var walk func(id string)
	walk = func(id string) {
		reached++
		for _, c := range byID[id].Children {
			if byID[c].Parent != id {
				t.Errorf("%s lists child %s whose parent is %q", id, c, byID[c].Parent)
			}
			walk(c)
		}
	}
	for _, b := range d.Blocks {
		if b.State == visualize.StateVisible && !inWindow["block:"+b.ID] {
			t.Errorf("visible block %s is not in the window", b.ID)
		}
		if b.Parent == "" {
			walk(b.ID)
		}
	}
	if reached != len(d.Blocks) {
		t.Errorf("tree reaches %d of %d blocks", reached, len(d.Blocks))
	}
	reasons := map[string]bool{}
	for _, r := range d.Recalls {
		reasons[r.Reason] = true
	}
	if !reasons["explicit"] || d.RecallsTotal < len(d.Recalls) {
		t.Errorf("recalls: %d of %d, reasons %v", len(d.Recalls), d.RecallsTotal, reasons)
	}
}
