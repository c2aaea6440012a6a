package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/locomo"
)

// TestKeepWantsAnEmptyDirectory keeps one eval's databases, then asks a
// second eval, at another budget, to keep its own in the same directory:
// it would open the first one's databases, folded under the first budget,
// and report their figures as its own. It must refuse, naming the
// directory, and a new directory must do.
func TestKeepWantsAnEmptyDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	convs, err := locomo.Load(filepath.Join("..", "testdata", "eval", "locomo-mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "kept")
	if _, err := LoCoMo(ctx, convs, Options{Budget: fixtureBudget, Limit: 1, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
		t.Fatalf("the first eval kept nothing in %s: %v", dir, err)
	}
	_, err = LoCoMo(ctx, convs, Options{Budget: 2 * fixtureBudget, Limit: 1, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a second eval into %s: err %v, want one saying it is not empty", dir, err)
	}
	if _, err := LoCoMo(ctx, convs, Options{Budget: 2 * fixtureBudget, Limit: 1, Dir: filepath.Join(t.TempDir(), "new")}); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
}
