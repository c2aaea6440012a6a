package fold_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/window"
)

func TestBookmarks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 128000, nil)
	l := newDeltaLog("marks", "Read the modules.")
	for i := 1; i <= 6; i++ {
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
	}
	run, _ := feed(t, eng, l)
	st := eng.Fold

	list := func() []fold.Bookmark {
		t.Helper()
		bs, err := st.Bookmarks(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		return bs
	}
	if got := list(); got == nil || len(got) != 0 {
		t.Fatalf("bookmarks of a fresh run: %#v, want an empty list", got)
	}
	if err := st.AddBookmark(ctx, run, 4, "the lexer bug"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddBookmark(ctx, run, 2, ""); err != nil {
		t.Fatal(err)
	}
	if want := []fold.Bookmark{{Iteration: 2, Note: ""}, {Iteration: 4, Note: "the lexer bug"}}; !reflect.DeepEqual(list(), want) {
		t.Errorf("bookmarks: %+v, want %+v", list(), want)
	}
	if err := st.AddBookmark(ctx, run, 4, "root cause of the lexer bug"); err != nil {
		t.Fatal(err)
	}
	if want := []fold.Bookmark{{Iteration: 2, Note: ""}, {Iteration: 4, Note: "root cause of the lexer bug"}}; !reflect.DeepEqual(list(), want) {
		t.Errorf("after replacing the note: %+v", list())
	}
	if ok, err := st.RemoveBookmark(ctx, run, 2); !ok || err != nil {
		t.Errorf("remove: %v %v", ok, err)
	}
	if ok, err := st.RemoveBookmark(ctx, run, 2); ok || err != nil {
		t.Errorf("remove again: %v %v", ok, err)
	}
	if want := []fold.Bookmark{{Iteration: 4, Note: "root cause of the lexer bug"}}; !reflect.DeepEqual(list(), want) {
		t.Errorf("after removing: %+v", list())
	}
	for _, n := range []int{0, 7} {
		var rng *journal.RangeError
		if err := st.AddBookmark(ctx, run, n, "x"); !errors.As(err, &rng) || !strings.Contains(err.Error(), "has iterations 1-6") {
			t.Errorf("bookmark iteration %d: %v", n, err)
		}
	}
	log, err := st.Log(ctx, run.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
	}
	if want := []string{"bookmark", "bookmark", "bookmark", "unbookmark"}; !reflect.DeepEqual(actions, want) {
		t.Errorf("fold log actions: %v, want %v", actions, want)
	}
}

// A bookmarked iteration that has been folded still shows its text, in the
// Dynamic partition, with its note in the Bookmarks section.
func TestBookmarkedIterationInWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng := openEngine(t, 32000, nil)
	l := newDeltaLog("marked", "Fix the lexer.")
	for i := 1; i <= 8; i++ {
		if i == 3 {
			l.think("The lexer drops tabs; this is the root cause.",
				okCall("read_file", map[string]any{"path": "src/lexer.py"}, "def lex(s):\n    return s.split(' ')\n"))
			continue
		}
		l.quietIteration(fmt.Sprintf("Read module %d.", i))
	}
	run, _ := feed(t, eng, l)
	if err := eng.Fold.AddBookmark(ctx, run, 3, "root cause"); err != nil {
		t.Fatal(err)
	}
	// While iteration 3 shows in full, the Dynamic partition does not repeat it.
	cx, err := eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := findSection(cx, window.Dynamic, "bookmark:3"); s != nil {
		t.Errorf("iteration 3 is in Working and repeated in Dynamic")
	}
	if _, err := eng.Folder.Fold(ctx, run, manual(1, 5, fold.L2)); err != nil {
		t.Fatal(err)
	}
	cx, err = eng.Context(ctx, run, memory.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := findSection(cx, window.Dynamic, "bookmark:3")
	if s == nil {
		t.Fatalf("no bookmark:3 section in Dynamic:\n%s", cx.Markdown())
	}
	if s.Name != "Bookmarked iteration 3" || !strings.HasPrefix(s.Content, "#### Iteration 3 (ok)\nThought: The lexer drops tabs; this is the root cause.") ||
		!strings.Contains(s.Content, "return s.split(' ')") {
		t.Errorf("bookmarked iteration section %q:\n%s", s.Name, s.Content)
	}
	marks := findSection(cx, window.Dynamic, "bookmarks")
	if marks == nil || marks.Name != "Bookmarks" || marks.Content != "- iteration 3: root cause" {
		t.Errorf("Bookmarks section: %+v", marks)
	}
	if !strings.Contains(cx.Markdown(), "### Bookmarked iteration 3\n#### Iteration 3 (ok)\n") {
		t.Errorf("markdown lacks the bookmarked iteration:\n%s", cx.Markdown())
	}
	if len(cx.Omitted) != 0 {
		t.Errorf("omitted: %v", cx.Omitted)
	}
}

func findSection(cx *window.Context, partition, source string) *window.Section {
	for i := range cx.Partitions {
		p := &cx.Partitions[i]
		if p.Name != partition {
			continue
		}
		for j := range p.Sections {
			if p.Sections[j].Source == source {
				return &p.Sections[j]
			}
		}
	}
	return nil
}
