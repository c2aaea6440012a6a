package fold

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/scoring"
)

// Reasons an iteration is protected (kept in detail when its range folds).
const (
	ProtectError       = "error"
	ProtectFirstOK     = "first-success"
	ProtectStateChange = "state-change"
	ProtectBookmark    = "bookmark"
)

// CallNote is what the Dynamic partition needs of one tool call.
type CallNote struct {
	Tool   string `json:"tool"`
	Target string `json:"target,omitempty"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	// Pending says the call has no result yet: it has not failed.
	Pending bool `json:"pending,omitempty"`
}

// Note is what folding needs of one iteration, computed once when the
// iteration is complete.
type Note struct {
	Run    string
	Number int
	// Block is the visible block covering the iteration, "" while it shows
	// in full.
	Block string
	// L0 is the full rendering, kept while Block is "".
	L0        string
	L0Msgs    []Message
	L0Tokens  int
	MsgTokens int
	// RawTokens is the iteration with every output whole (L0.RawTokens);
	// 0 for notes made before the database kept it.
	RawTokens int
	L1        string
	L1Tokens  int
	HasError  bool
	Protect   string
	Milestone string
	Entities  []string
	Changes   []string
	Errors    []string
	Terms     []string
	Calls     []CallNote
	// System holds the runtime's notes (SYSTEM_MESSAGE) as "LEVEL: text".
	// They show in the Dynamic partition, not in the iteration's own text,
	// so a note arriving after the window was built cannot change it.
	System    []string
	StartedAt string
	// effects are what the iteration's successful calls changed, entity
	// by entity, for the entity history; made with the note, not stored
	// with it.
	effects []scoring.EntityChange
}

type noteRow struct {
	Run       string         `db:"run_id"`
	Number    int            `db:"number"`
	Block     sql.NullString `db:"block"`
	L0        string         `db:"l0"`
	L0Msgs    string         `db:"l0_messages"`
	L0Tokens  int            `db:"l0_tokens"`
	MsgTokens int            `db:"msg_tokens"`
	RawTokens int            `db:"raw_tokens"`
	L1        string         `db:"l1"`
	L1Tokens  int            `db:"l1_tokens"`
	HasError  bool           `db:"has_error"`
	Protect   string         `db:"protect"`
	Milestone string         `db:"milestone"`
	Entities  string         `db:"entities"`
	Changes   string         `db:"changes"`
	Errors    string         `db:"errors"`
	Terms     string         `db:"terms"`
	Calls     string         `db:"calls"`
	System    string         `db:"system"`
	StartedAt string         `db:"started_at"`
}

const noteColumns = `run_id, number, block, l0, l0_messages, l0_tokens, msg_tokens, raw_tokens, l1, l1_tokens, has_error,
	protect, milestone, entities, changes, errors, terms, calls, system, started_at`

func (r *noteRow) toNote() *Note {
	n := &Note{
		Run: r.Run, Number: r.Number, Block: r.Block.String, L0: r.L0, L0Tokens: r.L0Tokens, MsgTokens: r.MsgTokens, RawTokens: r.RawTokens,
		L1: r.L1, L1Tokens: r.L1Tokens, HasError: r.HasError, Protect: r.Protect, Milestone: r.Milestone,
		Entities: decodeStrings(r.Entities), Changes: decodeStrings(r.Changes), Errors: decodeStrings(r.Errors),
		Terms: decodeStrings(r.Terms), System: decodeStrings(r.System), StartedAt: r.StartedAt,
	}
	_ = json.Unmarshal([]byte(r.L0Msgs), &n.L0Msgs)
	_ = json.Unmarshal([]byte(r.Calls), &n.Calls)
	return n
}

func fromNote(n *Note) *noteRow {
	msgs, _ := json.Marshal(n.L0Msgs)
	if n.L0Msgs == nil {
		msgs = []byte("[]")
	}
	calls, _ := json.Marshal(n.Calls)
	if n.Calls == nil {
		calls = []byte("[]")
	}
	return &noteRow{
		Run: n.Run, Number: n.Number, Block: sql.NullString{String: n.Block, Valid: n.Block != ""},
		L0: n.L0, L0Msgs: string(msgs), L0Tokens: n.L0Tokens, MsgTokens: n.MsgTokens, RawTokens: n.RawTokens, L1: n.L1, L1Tokens: n.L1Tokens,
		HasError: n.HasError, Protect: n.Protect, Milestone: n.Milestone,
		Entities: encodeStrings(n.Entities), Changes: encodeStrings(n.Changes), Errors: encodeStrings(n.Errors),
		Terms: encodeStrings(n.Terms), Calls: string(calls), System: encodeStrings(n.System), StartedAt: n.StartedAt,
	}
}

// putNote inserts or replaces an iteration's note.
func putNote(ctx context.Context, tx *sqlx.Tx, n *Note) error {
	_, err := tx.NamedExecContext(ctx, `INSERT INTO iteration_notes (`+noteColumns+`) VALUES
		(:run_id, :number, :block, :l0, :l0_messages, :l0_tokens, :msg_tokens, :raw_tokens, :l1, :l1_tokens, :has_error,
		 :protect, :milestone, :entities, :changes, :errors, :terms, :calls, :system, :started_at)
		ON CONFLICT (run_id, number) DO UPDATE SET block = excluded.block, l0 = excluded.l0, l0_messages = excluded.l0_messages,
		l0_tokens = excluded.l0_tokens, msg_tokens = excluded.msg_tokens, raw_tokens = excluded.raw_tokens, l1 = excluded.l1,
		l1_tokens = excluded.l1_tokens, has_error = excluded.has_error, protect = excluded.protect, milestone = excluded.milestone,
		entities = excluded.entities, changes = excluded.changes, errors = excluded.errors, terms = excluded.terms,
		calls = excluded.calls, system = excluded.system, started_at = excluded.started_at`, fromNote(n))
	if err != nil {
		return fmt.Errorf("store note of iteration %d: %w", n.Number, sqldb.Classify(err))
	}
	return nil
}

// Notes returns the notes of iterations first..last of a run, in order.
func (s *Store) Notes(ctx context.Context, run string, first, last int) ([]*Note, error) {
	return queryNotes(ctx, s.db.Cached(), `WHERE run_id = ? AND number BETWEEN ? AND ? ORDER BY number`, run, first, last)
}

// Line is what a note says of an iteration in one line: its L1 line and
// the block that covers it ("" while it shows in full).
type Line struct {
	Number   int    `db:"number"`
	Block    string `db:"block"`
	L1       string `db:"l1"`
	L1Tokens int    `db:"l1_tokens"`
	// L0Tokens is what the iteration takes in full.
	L0Tokens int `db:"l0_tokens"`
}

// Lines returns the L1 lines of iterations first..last of a run, by
// number: what a recall shows of iterations it does not show in full,
// without reading and decoding the rest of each note.
func (s *Store) Lines(ctx context.Context, run string, first, last int) ([]Line, error) {
	var out []Line
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &out, sqlSelectLines+`number BETWEEN ? AND ? ORDER BY number`, run, first, last); err != nil {
		return nil, fmt.Errorf("read iteration lines: %w", sqldb.Classify(err))
	}
	return out, nil
}

// LinesAt is Lines for the iterations numbers (ascending), which need not
// be next to each other, in one statement (a thousand at a time): what a
// recall reads of its hits across a long run. An iteration with no note
// yet is left out.
func (s *Store) LinesAt(ctx context.Context, run string, numbers []int) ([]Line, error) {
	var out []Line
	err := sqldb.InChunks(numbers, func(_ []int, list string, args []any) error {
		var lines []Line
		if err := sqlx.SelectContext(ctx, s.db.Cached(), &lines, sqlSelectLines+`number IN `+list+` ORDER BY number`, append([]any{run}, args...)...); err != nil {
			return fmt.Errorf("read iteration lines: %w", sqldb.Classify(err))
		}
		out = append(out, lines...)
		return nil
	})
	return out, err
}

// Size is what a recall needs to know of an iteration around its hits:
// what it takes in full, and whether a block covers it; and what a window
// needs of the newest iterations a caller shows itself: what they take
// with their outputs as they came, and as messages.
type Size struct {
	Number    int  `db:"number"`
	L0Tokens  int  `db:"l0_tokens"`
	RawTokens int  `db:"raw_tokens"`
	MsgTokens int  `db:"msg_tokens"`
	Folded    bool `db:"folded"`
}

// actsWithin is how many of a run's newest iterations Acts looks at.
const actsWithin = 50

// Acts reports whether any of the run's newest actsWithin iterations, up
// to now, called a tool: whether the run is an agent's, whose steps
// recall on their own (implicit and error-driven recall follow its calls),
// rather than a conversation's. It reads a bounded range of notes, however
// long the run.
func (s *Store) Acts(ctx context.Context, run string, now int) (bool, error) {
	var acts bool
	err := s.db.Read.QueryRowxContext(ctx, `SELECT EXISTS(SELECT 1 FROM iteration_notes WHERE run_id = ? AND number > ? AND number <= ? AND calls <> '[]')`,
		run, now-actsWithin, now).Scan(&acts)
	if err != nil {
		return false, fmt.Errorf("read whether run %s calls tools: %w", run, sqldb.Classify(err))
	}
	return acts, nil
}

// SizesAt is LinesAt without the L1 lines, which a recall does not show
// of the turns around its hits: only their sizes and covers.
func (s *Store) SizesAt(ctx context.Context, run string, numbers []int) ([]Size, error) {
	var out []Size
	err := sqldb.InChunks(numbers, func(_ []int, list string, args []any) error {
		var sizes []Size
		if err := sqlx.SelectContext(ctx, s.db.Cached(), &sizes, `SELECT number, l0_tokens, raw_tokens, msg_tokens, COALESCE(block, '') != '' AS folded
			FROM iteration_notes WHERE run_id = ? AND number IN `+list+` ORDER BY number`, append([]any{run}, args...)...); err != nil {
			return fmt.Errorf("read iteration sizes: %w", sqldb.Classify(err))
		}
		out = append(out, sizes...)
		return nil
	})
	return out, err
}

// sqlSelectLines reads Lines; the condition on the numbers follows.
const sqlSelectLines = `SELECT number, COALESCE(block, '') AS block, l1, l1_tokens, l0_tokens
	FROM iteration_notes WHERE run_id = ? AND `

// Activity is what a note says an iteration did: its calls, with how each
// ended, and the runtime's notes.
type Activity struct {
	Number int
	Calls  []CallNote
	System []string
}

// Activity returns what iterations first..last of a run did, by number:
// what the Dynamic partition reports, without reading and decoding the
// rest of each note (the newest iterations' notes hold their full L0).
func (s *Store) Activity(ctx context.Context, run string, first, last int) ([]Activity, error) {
	var rows []struct {
		Number int    `db:"number"`
		Calls  string `db:"calls"`
		System string `db:"system"`
	}
	if err := sqlx.SelectContext(ctx, s.db.Cached(), &rows, `SELECT number, calls, system
		FROM iteration_notes WHERE run_id = ? AND number BETWEEN ? AND ? ORDER BY number`, run, first, last); err != nil {
		return nil, fmt.Errorf("read iteration activity: %w", sqldb.Classify(err))
	}
	out := make([]Activity, len(rows))
	for i, r := range rows {
		out[i] = Activity{Number: r.Number, System: decodeStrings(r.System)}
		_ = json.Unmarshal([]byte(r.Calls), &out[i].Calls)
	}
	return out, nil
}

// WorkingNotes returns the notes of the iterations that show in full (no
// visible block covers them), oldest first. Their number is bounded by the
// window, because the scheduler folds them as they accumulate.
func (s *Store) WorkingNotes(ctx context.Context, run string) ([]*Note, error) {
	return workingNotes(ctx, s.db.Read, run)
}

func workingNotes(ctx context.Context, q sqlx.QueryerContext, run string) ([]*Note, error) {
	return queryNotes(ctx, q, `INDEXED BY iteration_notes_l0 WHERE run_id = ? AND block IS NULL ORDER BY number`, run)
}

func queryNotes(ctx context.Context, q sqlx.QueryerContext, where string, args ...any) ([]*Note, error) {
	var rows []noteRow
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT `+noteColumns+` FROM iteration_notes `+where, args...); err != nil {
		return nil, fmt.Errorf("read iteration notes: %w", sqldb.Classify(err))
	}
	out := make([]*Note, len(rows))
	for i := range rows {
		out[i] = rows[i].toNote()
	}
	return out, nil
}

// cover marks iterations first..last as covered by block (or, with block
// "", as showing in full again). Covered iterations drop their cached L0.
func cover(ctx context.Context, tx *sqlx.Tx, run string, first, last int, block string) error {
	var err error
	if block == "" {
		_, err = tx.ExecContext(ctx, `UPDATE iteration_notes SET block = NULL WHERE run_id = ? AND number BETWEEN ? AND ?`, run, first, last)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE iteration_notes SET block = ?, l0 = '', l0_messages = '[]'
			WHERE run_id = ? AND number BETWEEN ? AND ?`, block, run, first, last)
	}
	if err != nil {
		return fmt.Errorf("mark iterations %d-%d: %w", first, last, sqldb.Classify(err))
	}
	return nil
}

// uncover shows iteration n in full again, with a fresh L0 rendering.
func uncover(ctx context.Context, tx *sqlx.Tx, run string, n int, r L0) error {
	msgs, err := json.Marshal(r.Messages)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE iteration_notes SET block = NULL, l0 = ?, l0_messages = ?, l0_tokens = ?, msg_tokens = ?
		WHERE run_id = ? AND number = ?`, r.Markdown, string(msgs), r.MarkdownTokens, r.MessagesTokens, run, n)
	if err != nil {
		return fmt.Errorf("show iteration %d again: %w", n, sqldb.Classify(err))
	}
	return nil
}

// dfLookup returns a document-frequency function over a run's terms. It
// reads lazily, one term at a time, and remembers what it read.
func (s *Store) dfLookup(ctx context.Context, run string) func(string) int {
	cache := map[string]int{}
	return func(term string) int {
		if v, ok := cache[term]; ok {
			return v
		}
		// A term never counted has no row: df 0. Any other error also reads
		// as 0, which only makes that keyword rank as rarer; a summary is not
		// worth failing a fold for.
		var df int
		_ = s.db.Read.GetContext(ctx, &df, `SELECT df FROM term_df WHERE run_id = ? AND term = ?`, run, term)
		cache[term] = df
		return df
	}
}

// addTerms counts an iteration's distinct terms into the run's document
// frequencies.
// It writes them in one statement: one per term cost more than the rest of
// noting an iteration.
func addTerms(ctx context.Context, tx *sqlx.Tx, run string, terms []string) error {
	if len(terms) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(terms))
	for _, t := range terms {
		args = append(args, run, t)
	}
	q := `INSERT INTO term_df (run_id, term, df) VALUES (?, ?, 1)` + strings.Repeat(`, (?, ?, 1)`, len(terms)-1) +
		` ON CONFLICT (run_id, term) DO UPDATE SET df = term_df.df + 1`
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("count terms: %w", sqldb.Classify(err))
	}
	return nil
}
