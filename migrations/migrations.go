// Package migrations holds the goose SQL migrations of the delta-memory
// database, embedded so that the binary carries its own schema.
//
// The files at the top are SQLite's. postgres/ holds PostgreSQL's version
// of each migration whose SQL differs there (types, collation, rowid);
// PostgreSQL takes the top file for the others.
//
// Rules: a migration that has shipped is never edited; a change to the schema
// is a new file with the next number, in both dialects where they differ.
package migrations

import (
	"embed"
	"io/fs"
	"path"
	"slices"
)

// FS holds SQLite's numbered *.sql migrations at its top, for
// goose.NewProvider, and PostgreSQL's own versions under postgres/.
//
//go:embed *.sql postgres/*.sql
var FS embed.FS

// Postgres returns PostgreSQL's migrations: each file of postgres/ in place
// of the top file of the same name, and the top files that have none.
func Postgres() fs.FS {
	top, err := fs.Sub(FS, "postgres")
	if err != nil {
		panic(err) // postgres/ is embedded: this cannot happen
	}
	return overlay{top: top, base: FS}
}

// overlay is a flat file system: a name is looked up in top, then in base.
type overlay struct{ top, base fs.FS }

// Open opens name from top if it is there, else from base.
func (o overlay) Open(name string) (fs.File, error) {
	if f, err := o.top.Open(name); err == nil {
		return f, nil
	}
	return o.base.Open(name)
}

// Glob lists the names matching pattern in either, once each.
func (o overlay) Glob(pattern string) ([]string, error) {
	a, err := fs.Glob(o.top, pattern)
	if err != nil {
		return nil, err
	}
	b, err := fs.Glob(o.base, pattern)
	if err != nil {
		return nil, err
	}
	out := append(a, b...)
	slices.SortFunc(out, func(x, y string) int {
		switch {
		case path.Base(x) < path.Base(y):
			return -1
		case path.Base(x) > path.Base(y):
			return 1
		}
		return 0
	})
	return slices.Compact(out), nil
}
