package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// renderVersion names fold.RenderL0's Markdown. Bump it when that
// rendering changes, so that renderings kept in recall_renders by an
// older build are made again; TestRenderVersionNamesTheRendering fails
// until then.
const renderVersion = "4"

// rendering is an iteration's L0 Markdown and its token count.
type rendering struct {
	Iteration int    `db:"iteration"`
	Markdown  string `db:"markdown"`
	Tokens    int    `db:"tokens"`
}

// renderKey names what a kept rendering depends on besides its iteration.
func (e *Engine) renderKey(maxOut int) string {
	return renderVersion + "/" + e.Tokenizer.Name() + "/" + strconv.Itoa(maxOut)
}

// renderings returns the L0 renderings of run's iterations numbers (in
// ascending order, no repeats, not necessarily next to each other), under
// the output bound maxOut. Those kept in recall_renders are read from
// there, in one statement (a thousand at a time); the others are read
// from the journal, in one more, and rendered, and kept when keep is set.
// Only folded iterations belong here: they no longer change.
//
// An iteration that only speaks renders as fold.SpokenLine, one line per
// message, alone or not, so that its text names it (window.SelfNamed);
// any other as fold.RenderL0. lone asks for the rendering of one
// iteration shown alone: a RenderL0 one without its trailing newlines, and
// without its L0 heading when the heading says only "ok" (the recall's
// section heading names the iteration already).
func (e *Engine) renderings(ctx context.Context, r journal.Run, numbers []int, maxOut int, lone, keep bool) ([]rendering, error) {
	run := r.ID
	if len(numbers) == 0 {
		return nil, nil
	}
	key := e.renderKey(maxOut)
	if lone {
		key += "/lone"
	}
	var kept []rendering
	if err := sqldb.InChunks(numbers, func(_ []int, list string, args []any) error {
		var rs []rendering
		if err := sqlx.SelectContext(ctx, e.db.Cached(), &rs, `SELECT iteration, markdown, tokens FROM recall_renders
			WHERE run_id = ? AND key = ? AND iteration IN `+list+` ORDER BY iteration`, append([]any{run, key}, args...)...); err != nil {
			return fmt.Errorf("read kept renderings of run %s: %w", run, err)
		}
		kept = append(kept, rs...)
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]rendering, 0, len(numbers))
	var missing []int
	for _, n := range numbers {
		if i, ok := slices.BinarySearchFunc(kept, n, func(r rendering, n int) int { return r.Iteration - n }); ok {
			out = append(out, kept[i])
			continue
		}
		missing = append(missing, n)
		out = append(out, rendering{Iteration: n})
	}
	if len(missing) == 0 {
		return out, nil
	}
	its, err := e.Journal.IterationsAt(ctx, r, missing, journal.ReadOptions{})
	if err != nil {
		return nil, err
	}
	var made []rendering
	for _, it := range its {
		i, ok := slices.BinarySearchFunc(out, it.Number, func(r rendering, n int) int { return r.Iteration - n })
		if !ok || out[i].Markdown != "" {
			continue
		}
		if line, ok := fold.SpokenLine(it); ok {
			out[i].Markdown, out[i].Tokens = line, e.Tokenizer.Count(line)
			made = append(made, out[i])
			continue
		}
		out[i].Markdown, out[i].Tokens = e.renderAs(it, maxOut, lone)
		made = append(made, out[i])
	}
	out = slices.DeleteFunc(out, func(r rendering) bool { return r.Markdown == "" })
	if keep && len(made) > 0 {
		if err := e.keepRenderings(ctx, run, key, made); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// renderAs renders an iteration that does not only speak (renderings),
// its tool outputs bounded by maxOut, with its token count; alone (lone),
// without its trailing newlines, and without its L0 heading when the
// heading says only "ok".
func (e *Engine) renderAs(it *journal.Iteration, maxOut int, lone bool) (string, int) {
	l0 := e.renderL0(it, maxOut)
	if !lone {
		return l0.Markdown, l0.MarkdownTokens
	}
	md := strings.TrimRight(l0.Markdown, "\n")
	if rest, ok := strings.CutPrefix(md, fmt.Sprintf("#### Iteration %d (ok)\n", it.Number)); ok {
		return rest, e.Tokenizer.Count(rest)
	}
	return md, l0.MarkdownTokens
}

// keepRowsAt is how many renderings keepRenderings writes a statement:
// the statement caches (internal/sqldb) then see a few shapes of it.
const keepRowsAt = 8

// keepRenderings saves renderings under key, in one transaction.
func (e *Engine) keepRenderings(ctx context.Context, run, key string, rs []rendering) error {
	return e.db.Update(ctx, run, func(tx *sqlx.Tx) error {
		for len(rs) > 0 {
			chunk := rs[:min(len(rs), keepRowsAt)]
			rs = rs[len(chunk):]
			q := `INSERT INTO recall_renders (run_id, iteration, key, markdown, tokens) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", len(chunk)), ", ") +
				` ON CONFLICT (run_id, iteration, key) DO UPDATE SET markdown = excluded.markdown, tokens = excluded.tokens`
			args := make([]any, 0, 5*len(chunk))
			for _, r := range chunk {
				args = append(args, run, r.Iteration, key, r.Markdown, r.Tokens)
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("keep renderings of run %s: %w", run, err)
			}
		}
		return nil
	})
}
