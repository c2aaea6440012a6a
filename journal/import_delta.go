package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
)

// prefixHashBytes is how much of a journal's head identifies the file for an
// import cursor: if those bytes change, the file was replaced, not appended to.
const prefixHashBytes = 4096

// cursor records how far a journal file was imported.
type cursor struct {
	Offset     int64  `db:"offset"`
	Line       int    `db:"line"`
	LastSeq    int64  `db:"last_seq"`
	PrefixHash string `db:"prefix_hash"`
}

// deltaRunID finds the run a Delta journal belongs to: RUN_START's run_id on
// the first line, else the directory the file sits in (.delta/<run_id>/).
func deltaRunID(f *os.File, path string) (string, error) {
	lr := newLineReader(io.NewSectionReader(f, 0, 1<<30), 0, 0)
	line, _, err := lr.next()
	if err == nil {
		if e, perr := ParseDeltaLine(line); perr == nil && e.Type == TypeRunStart {
			if p, derr := e.RunStart(); derr == nil && p.RunID != "" {
				return p.RunID, nil
			}
		}
	} else if !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir := filepath.Base(filepath.Dir(abs))
	if dir == "" || dir == "." || dir == string(filepath.Separator) {
		return "", &InputError{File: path, Message: -1, Err: errors.New("cannot tell the run id: no RUN_START with run_id on line 1"), Hint: "pass --run ID"}
	}
	return dir, nil
}

// importDelta streams new lines of a Delta journal into the run in one
// transaction. It resumes from the file's import cursor when the file is the
// one the cursor was made for, and otherwise reads from the top, skipping
// events already stored.
func (s *Store) importDelta(ctx context.Context, f *os.File, name, runID string, progress func(done, total int64)) (ImportResult, error) {
	res := ImportResult{File: name, Run: runID, Format: FormatDelta}
	abs, err := filepath.Abs(f.Name())
	if err != nil {
		return res, err
	}
	st, err := f.Stat()
	if err != nil {
		return res, fmt.Errorf("stat %s: %w", name, err)
	}
	// The common case before every LLM call: nothing was appended since the
	// last import. Tell from the cursor, without taking the write lock.
	if done, err := s.upToDate(ctx, f, abs, runID, st.Size(), &res); done || err != nil {
		return res, err
	}
	err = s.update(ctx, runID, func(tx *writeTx) error {
		a, err := s.newAppender(ctx, tx, runID, FormatDelta)
		if err != nil {
			return err
		}

		start, err := resumePoint(ctx, tx.Tx, f, abs, runID, st.Size())
		if err != nil {
			return err
		}
		stored, checked := a.run.LastSeq, false
		res.Resumed = start.Offset > 0
		if res.Resumed {
			if res.Seeked, err = s.storedThrough(ctx, tx.Tx, runID, start.LastSeq, a.run.LastSeq, a.run.Events); err != nil {
				return err
			}
		}
		if _, err := f.Seek(start.Offset, io.SeekStart); err != nil {
			return fmt.Errorf("seek %s: %w", name, err)
		}
		lr := newLineReader(f, start.Line, start.Offset)
		prev := start.LastSeq
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			line, partial, err := lr.next()
			if errors.Is(err, io.EOF) {
				res.PartialLine = partial
				break
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			e, err := ParseDeltaLine(line)
			if err != nil {
				return lineError(name, lr.line, err)
			}
			if e.Seq <= prev {
				return lineError(name, lr.line, fmt.Errorf("seq %d does not increase (previous line had seq %d)", e.Seq, prev))
			}
			prev = e.Seq
			if e.Seq <= stored && !checked {
				// Read from the top: the first event already stored must be
				// the one stored, or the file is another journal.
				checked = true
				if err := sameStored(ctx, tx.Tx, runID, e); err != nil {
					return fmt.Errorf("%s:%d: %w", name, lr.line, err)
				}
			}
			if _, err := a.add(ctx, e); err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					return err
				}
				var pe *PayloadError
				if errors.Is(err, ErrSeqOrder) || errors.As(err, &pe) {
					return lineError(name, lr.line, err)
				}
				return err
			}
			if progress != nil && lr.line%4096 == 0 {
				progress(lr.off, st.Size())
			}
		}
		if progress != nil {
			progress(lr.off, st.Size())
		}
		if prev > 0 && prev < stored && a.res.Added == 0 {
			return fmt.Errorf("%w: %s ends at seq %d, but run %s holds events up to seq %d (was it rotated or truncated?); import it as a new run with --run, or point at the journal the run was written to",
				ErrJournalReplaced, name, prev, runID, stored)
		}
		ar, err := a.finish(ctx)
		if err != nil {
			return err
		}
		res.setAppend(ar)
		return saveCursor(ctx, tx.Tx, f, abs, runID, cursor{Offset: lr.off, Line: lr.line, LastSeq: prev})
	})
	return res, err
}

// upToDate reports whether the file holds nothing past its import cursor
// (at most a partial last line), filling res from the stored run if so.
func (s *Store) upToDate(ctx context.Context, f *os.File, abs, runID string, size int64, res *ImportResult) (bool, error) {
	c, err := resumePoint(ctx, s.db.Read, f, abs, runID, size)
	if err != nil || c.Offset == 0 {
		return false, err
	}
	rest := make([]byte, min(size-c.Offset, 64<<10))
	if _, err := f.ReadAt(rest, c.Offset); err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if bytes.IndexByte(rest, '\n') >= 0 || int64(len(rest)) < size-c.Offset {
		return false, nil // a complete new line (or too much to tell)
	}
	run, err := s.Run(ctx, runID)
	if err != nil {
		return false, err
	}
	res.Resumed, res.PartialLine = true, len(bytes.TrimSpace(rest)) > 0
	res.Iterations, res.LastSeq = run.Iterations, run.LastSeq
	if res.Seeked, err = s.storedThrough(ctx, s.db.Read, runID, c.LastSeq, run.LastSeq, run.Events); err != nil {
		return false, err
	}
	return true, nil
}

// storedThrough counts the run's events up to seq: those a resumed import
// seeks past, which are stored already (ImportResult.Seeked). When seq is the run's last, the run's event
// count says it without a query; the query is for a run that has events
// from elsewhere too.
func (s *Store) storedThrough(ctx context.Context, q sqlx.QueryerContext, runID string, seq, lastSeq, events int64) (int, error) {
	if seq == lastSeq {
		return int(events), nil
	}
	var n int
	if err := sqlx.GetContext(ctx, q, &n, `SELECT COUNT(*) FROM events WHERE run_id = ? AND seq <= ?`, runID, seq); err != nil {
		return 0, fmt.Errorf("count stored events: %w", sqldb.Classify(err))
	}
	return n, nil
}

// resumePoint returns where to start reading: the stored cursor if it still
// describes this file (not shrunk, same head bytes), else the top.
func resumePoint(ctx context.Context, q sqlx.QueryerContext, f *os.File, abs, runID string, size int64) (cursor, error) {
	var c cursor
	err := sqlx.GetContext(ctx, q, &c, `SELECT "offset", line, last_seq, prefix_hash FROM import_cursors WHERE path = ? AND run_id = ?`, abs, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return cursor{}, nil
	}
	if err != nil {
		return cursor{}, fmt.Errorf("read import cursor: %w", sqldb.Classify(err))
	}
	if c.Offset > size {
		return cursor{}, nil
	}
	h, err := prefixHash(f, c.Offset)
	if err != nil {
		return cursor{}, err
	}
	if h != c.PrefixHash {
		return cursor{}, nil
	}
	return c, nil
}

func saveCursor(ctx context.Context, tx *sqlx.Tx, f *os.File, abs, runID string, c cursor) error {
	h, err := prefixHash(f, c.Offset)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO import_cursors (path, run_id, "offset", line, last_seq, prefix_hash)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (path, run_id) DO UPDATE SET
		"offset" = excluded."offset", line = excluded.line, last_seq = excluded.last_seq, prefix_hash = excluded.prefix_hash`,
		abs, runID, c.Offset, c.Line, c.LastSeq, h)
	if err != nil {
		return fmt.Errorf("save import cursor: %w", sqldb.Classify(err))
	}
	return nil
}

// prefixHash hashes the first min(offset, prefixHashBytes) bytes of f.
func prefixHash(f *os.File, offset int64) (string, error) {
	n := min(offset, prefixHashBytes)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read %s: %w", f.Name(), err)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// sameStored checks that event e, whose seq the run holds already, is the
// event stored at that seq (same type and time): a journal read again from
// its top repeats the run, a rotated or replaced one does not.
func sameStored(ctx context.Context, q sqlx.QueryerContext, runID string, e Event) error {
	var row struct {
		Type string `db:"type"`
		TS   string `db:"ts"`
	}
	err := sqlx.GetContext(ctx, q, &row, `SELECT type, ts FROM events WHERE run_id = ? AND seq = ?`, runID, e.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // a gap in the stored seqs: nothing to compare
	}
	if err != nil {
		return fmt.Errorf("read stored event %d: %w", e.Seq, sqldb.Classify(err))
	}
	if row.Type != e.Type || row.TS != TimeText(e.Timestamp) {
		return fmt.Errorf("%w: seq %d is %s at %s here, but run %s stored %s at %s (the journal was rotated or replaced); import it as a new run with --run, or point at the journal the run was written to",
			ErrJournalReplaced, e.Seq, e.Type, TimeText(e.Timestamp), runID, row.Type, row.TS)
	}
	return nil
}
