package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/pressly/goose/v3"

	"github.com/delta-memory/delta-memory/migrations"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer delta-memory than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this delta")

// SchemaError says which versions clashed. It unwraps to ErrSchemaTooNew.
type SchemaError struct {
	DBVersion    int64
	KnownVersion int64
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this delta understands (up to %d); upgrade delta (go install github.com/delta-memory/delta-memory/cmd/delta@latest)", e.DBVersion, e.KnownVersion)
}

// Unwrap lets errors.Is match ErrSchemaTooNew.
func (e *SchemaError) Unwrap() error { return ErrSchemaTooNew }

// migrate applies the embedded migrations through a goose Provider. It
// refuses to touch a database whose version is beyond the embedded ones,
// since an older binary cannot know what a newer schema means.
func migrate(ctx context.Context, db *sql.DB) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", Classify(err))
	}
	var known int64
	for _, s := range p.ListSources() {
		known = max(known, s.Version)
	}
	if current > known {
		return &SchemaError{DBVersion: current, KnownVersion: known}
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate database: %w", Classify(err))
	}
	return nil
}

// SchemaVersion reports the version the database is migrated to.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.Write.DB, migrations.FS)
	if err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	return p.GetDBVersion(ctx)
}
