// Package migrations holds the goose SQL migrations of the delta-memory
// database, embedded so that the binary carries its own schema.
//
// Rules: a migration that has shipped is never edited; a change to the schema
// is a new file with the next number.
package migrations

import "embed"

// FS holds the numbered *.sql migrations, for goose.NewProvider.
//
//go:embed *.sql
var FS embed.FS
