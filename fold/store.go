package fold

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/delta-memory/delta-memory/internal/sqldb"
	"github.com/delta-memory/delta-memory/journal"
)

// Errors returned by the fold store and the commands built on it.
var (
	// ErrBlockNotFound means no block has the given id in the run.
	ErrBlockNotFound = errors.New("block not found")
	// ErrBadRange means a fold range is malformed or outside the run.
	ErrBadRange = errors.New("bad iteration range")
)

// Store keeps blocks, iteration notes, bookmarks and scheduler state in the
// same SQLite database as the journal.
type Store struct {
	db *sqldb.DB
	// betweenWindowReads, when set (by tests), runs between Window's two
	// reads.
	betweenWindowReads func()
}

// NewStore returns a fold Store on an open database.
func NewStore(db *sqldb.DB) *Store { return &Store{db: db} }

// nextBlockRow is the SQL of a new rowid for a block that must count as
// made now (BlocksAfter): past every block's, on SQLite, and the next of
// the rowid column's sequence on PostgreSQL, whose inserts draw from it.
func (s *Store) nextBlockRow() string {
	if s.db.Dialect == sqldb.Postgres {
		return `nextval(pg_get_serial_sequence('blocks', 'rowid'))`
	}
	return `(SELECT MAX(rowid) + 1 FROM blocks)`
}

// update runs fn in one write transaction of run (see sqldb.DB.Update).
func (s *Store) update(ctx context.Context, run string, fn func(tx *sqlx.Tx) error) error {
	return s.db.Update(ctx, run, fn)
}

// blockRow is the blocks table row.
type blockRow struct {
	ID             string         `db:"id"`
	Run            string         `db:"run_id"`
	Level          int            `db:"level"`
	Kind           string         `db:"kind"`
	First          int            `db:"first_iter"`
	Last           int            `db:"last_iter"`
	Visible        bool           `db:"visible"`
	Unfolded       bool           `db:"unfolded"`
	Parent         sql.NullString `db:"parent"`
	Importance     float64        `db:"importance"`
	AccessCount    int            `db:"access_count"`
	LastAccessIter int            `db:"last_access_iter"`
	ErrorCount     int            `db:"error_count"`
	ChangeCount    int            `db:"change_count"`
	Tokens         int            `db:"tokens"`
	Trigger        string         `db:"trigger"`
	Summarizer     string         `db:"summarizer"`
	CreatedIter    int            `db:"created_iter"`
	StartedAt      string         `db:"started_at"`
	EndedAt        string         `db:"ended_at"`
	CreatedAt      string         `db:"created_at"`
	Title          string         `db:"title"`
	Outcome        string         `db:"outcome"`
	Keywords       string         `db:"keywords"`
	Entities       string         `db:"entities"`
	StateChanges   string         `db:"state_changes"`
	Errors         string         `db:"errors"`
	Pinned         string         `db:"pinned"`
	Content        string         `db:"content"`
	LLMCalls       int            `db:"llm_calls"`
	LLMPrompt      int            `db:"llm_prompt_tokens"`
	LLMCompletion  int            `db:"llm_completion_tokens"`
	SelfCheck      string         `db:"self_check"`
	AwaitingLLM    bool           `db:"awaiting_llm"`
	Usage          float64        `db:"made_at_usage"`
}

const blockColumns = `id, run_id, level, kind, first_iter, last_iter, visible, unfolded, parent, importance,
	access_count, last_access_iter, error_count, change_count, tokens, trigger, summarizer, created_iter,
	started_at, ended_at, created_at, title, outcome, keywords, entities, state_changes, errors, pinned, content,
	llm_calls, llm_prompt_tokens, llm_completion_tokens, self_check, awaiting_llm, made_at_usage`

func (r *blockRow) toBlock() *Block {
	b := &Block{
		ID: r.ID, Run: r.Run, Level: r.Level, Kind: r.Kind, First: r.First, Last: r.Last,
		Visible: r.Visible, Unfolded: r.Unfolded, Parent: r.Parent.String, Importance: r.Importance,
		AccessCount: r.AccessCount, LastAccessIter: r.LastAccessIter, Tokens: r.Tokens,
		Trigger: r.Trigger, Summarizer: r.Summarizer, CreatedIter: r.CreatedIter, CreatedAt: journal.ParseTimeText(r.CreatedAt),
		Start: journal.ParseTimeText(r.StartedAt), End: journal.ParseTimeText(r.EndedAt),
		Title: r.Title, Outcome: r.Outcome, Content: r.Content, SelfCheck: r.SelfCheck, AwaitingLLM: r.AwaitingLLM, Usage: r.Usage,
		LLM: LLMUsage{Calls: r.LLMCalls, PromptTokens: r.LLMPrompt, CompletionTokens: r.LLMCompletion},
	}
	b.Keywords = decodeStrings(r.Keywords)
	b.Entities = decodeStrings(r.Entities)
	b.StateChanges = decodeStrings(r.StateChanges)
	b.Errors = decodeStrings(r.Errors)
	_ = json.Unmarshal([]byte(r.Pinned), &b.Pinned)
	return b
}

func fromBlock(b *Block) *blockRow {
	pinned, _ := json.Marshal(nonNilInts(b.Pinned))
	return &blockRow{
		ID: b.ID, Run: b.Run, Level: b.Level, Kind: b.Kind, First: b.First, Last: b.Last,
		Visible: b.Visible, Unfolded: b.Unfolded, Parent: sql.NullString{String: b.Parent, Valid: b.Parent != ""},
		Importance: b.Importance, AccessCount: b.AccessCount, LastAccessIter: b.LastAccessIter,
		ErrorCount: len(b.Errors), ChangeCount: len(b.StateChanges), Tokens: b.Tokens,
		Trigger: b.Trigger, Summarizer: b.Summarizer, CreatedIter: b.CreatedIter, CreatedAt: journal.TimeText(b.CreatedAt),
		StartedAt: journal.TimeText(b.Start), EndedAt: journal.TimeText(b.End),
		Title: b.Title, Outcome: b.Outcome, Content: b.Content,
		Keywords: encodeStrings(b.Keywords), Entities: encodeStrings(b.Entities),
		StateChanges: encodeStrings(b.StateChanges), Errors: encodeStrings(b.Errors), Pinned: string(pinned),
		LLMCalls: b.LLM.Calls, LLMPrompt: b.LLM.PromptTokens, LLMCompletion: b.LLM.CompletionTokens, SelfCheck: b.SelfCheck,
		AwaitingLLM: b.AwaitingLLM, Usage: b.Usage,
	}
}

// insertBlock stores a new block.
func insertBlock(ctx context.Context, tx *sqlx.Tx, b *Block) error {
	cols := strings.Split(strings.Join(strings.Fields(blockColumns), ""), ",")
	named := ":" + strings.Join(cols, ", :")
	if _, err := tx.NamedExecContext(ctx, `INSERT INTO blocks (`+blockColumns+`) VALUES (`+named+`)`, fromBlock(b)); err != nil {
		return fmt.Errorf("store block %s: %w", b.ID, sqldb.Classify(err))
	}
	return nil
}

// VisibleBlocks returns the blocks the window shows for a run, oldest first.
func (s *Store) VisibleBlocks(ctx context.Context, run string) ([]*Block, error) {
	return s.queryBlocks(ctx, s.db.Read, `WHERE run_id = ? AND visible = 1 ORDER BY first_iter`, run)
}

// Shown is what the window needs of a visible block.
type Shown struct {
	ID      string `db:"id"`
	Level   int    `db:"level"`
	First   int    `db:"first_iter"`
	Last    int    `db:"last_iter"`
	Tokens  int    `db:"tokens"`
	Content string `db:"content"`
	// Made is the run's iteration count when the block was made.
	Made int `db:"created_iter"`
}

// shown lists the visible blocks of a run, oldest first, with only what the
// window renders: no metadata to decode on every build.
func shown(ctx context.Context, q sqlx.QueryerContext, run string) ([]Shown, error) {
	var out []Shown
	err := sqlx.SelectContext(ctx, q, &out, `SELECT id, level, first_iter, last_iter, tokens, content, created_iter
		FROM blocks WHERE run_id = ? AND visible = 1 ORDER BY first_iter`, run)
	if err != nil {
		return nil, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	return out, nil
}

// Window reads what a context window shows of a run's folds: its visible
// blocks and the notes of the iterations no block covers
// (WorkingNotes), in one read snapshot. Read one after the other, a fold
// that another process commits between them could make the window show an
// iteration twice (in its new block and in full) or not at all. Its errors
// are the database's, classified by sqldb.Classify.
func (s *Store) Window(ctx context.Context, run string) ([]Shown, []*Note, error) {
	tx, err := s.db.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	blocks, err := shown(ctx, tx, run)
	if err != nil {
		return nil, nil, err
	}
	if s.betweenWindowReads != nil {
		s.betweenWindowReads()
	}
	notes, err := workingNotes(ctx, tx, run)
	if err != nil {
		return nil, nil, err
	}
	return blocks, notes, nil
}

// AllBlocks returns every block of a run, absorbed and unfolded ones too,
// ordered by range then level.
func (s *Store) AllBlocks(ctx context.Context, run string) ([]*Block, error) {
	return s.queryBlocks(ctx, s.db.Read, `WHERE run_id = ? ORDER BY first_iter, level DESC, id`, run)
}

// Block returns one block of a run, or an error wrapping ErrBlockNotFound.
func (s *Store) Block(ctx context.Context, run, id string) (*Block, error) {
	bs, err := s.queryBlocks(ctx, s.db.Read, `WHERE run_id = ? AND id = ?`, run, id)
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		return nil, fmt.Errorf("%w: %q in run %s", ErrBlockNotFound, id, run)
	}
	return bs[0], nil
}

func (s *Store) queryBlocks(ctx context.Context, q sqlx.QueryerContext, where string, args ...any) ([]*Block, error) {
	var rows []blockRow
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT `+blockColumns+` FROM blocks `+where, args...); err != nil {
		return nil, fmt.Errorf("read blocks: %w", sqldb.Classify(err))
	}
	out := make([]*Block, len(rows))
	for i := range rows {
		out[i] = rows[i].toBlock()
	}
	return out, nil
}

func encodeStrings(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func decodeStrings(s string) []string {
	var v []string
	_ = json.Unmarshal([]byte(s), &v)
	if v == nil {
		v = []string{}
	}
	return v
}

func nonNilInts(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}
