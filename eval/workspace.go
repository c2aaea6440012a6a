package eval

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/scoring"
)

// dbName is the database file of a workspace; its recall index sits
// beside it.
const dbName = "memory.db"

// workspace holds a dialogue imported and folded once (base), from which
// each question gets a fresh copy, so that no question sees another.
type workspace struct {
	dir  string
	cfg  memory.Config
	base string
	n    int
	// tok is the engine's tokenizer, for the baselines.
	tok scoring.Tokenizer
}

// newWorkspace imports d into a new database under dir and folds it.
func newWorkspace(ctx context.Context, dir string, cfg memory.Config, d *Dialogue) (*workspace, error) {
	w := &workspace{dir: dir, cfg: cfg, base: filepath.Join(dir, "base")}
	if err := os.MkdirAll(w.base, 0o755); err != nil {
		return nil, err
	}
	eng, err := w.open(ctx, w.base)
	if err != nil {
		return nil, err
	}
	w.tok = eng.Tokenizer
	_, err = eng.Journal.Append(ctx, d.ID, journal.FormatDelta, d.Events)
	if err == nil {
		_, err = eng.Update(ctx, d.ID)
	}
	// Close checkpoints the WAL, so that the base is one file and an index.
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", d.ID, err)
	}
	return w, nil
}

func (w *workspace) open(ctx context.Context, dir string) (*memory.Engine, error) {
	cfg := w.cfg
	cfg.DBPath = filepath.Join(dir, dbName)
	return memory.Open(ctx, cfg)
}

// fresh opens a copy of the base; done closes it and removes the copy.
func (w *workspace) fresh(ctx context.Context) (eng *memory.Engine, done func() error, err error) {
	w.n++
	dir := filepath.Join(w.dir, fmt.Sprintf("q%d", w.n))
	if err := copyTree(w.base, dir); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("copy the base database: %w", err)
	}
	eng, err = w.open(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return eng, func() error {
		err := eng.Close()
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
		return err
	}, nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		return copyFile(path, to)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
