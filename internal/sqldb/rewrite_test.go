package sqldb

import "testing"

func TestToPostgres(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT (SELECT x FROM t WHERE r = ?1 AND n = ?2), (SELECT y FROM t WHERE r = ?1 AND n = ?3)`,
			`SELECT (SELECT x FROM t WHERE r = $1 AND n = $2), (SELECT y FROM t WHERE r = $1 AND n = $3)`},
		{`SELECT n FROM notes INDEXED BY notes_l0 WHERE run_id = ?`, `SELECT n FROM notes WHERE run_id = $1`},
		{"SELECT n FROM notes\n\t\tINDEXED BY notes_l0\n\t\tWHERE run_id = ?", "SELECT n FROM notes\n\t\tWHERE run_id = $1"},
		{`SELECT 'what? it''s ?' AS q, "odd?col" FROM t WHERE a = ?`, `SELECT 'what? it''s ?' AS q, "odd?col" FROM t WHERE a = $1`},
		{"SELECT a -- why? because\nFROM t WHERE b = ?", "SELECT a -- why? because\nFROM t WHERE b = $1"},
		{`SELECT indexed_iter, reindexed FROM t WHERE x = ?`, `SELECT indexed_iter, reindexed FROM t WHERE x = $1`},
		{`UPDATE t SET v = $1`, `UPDATE t SET v = $1`},
	} {
		if got := toPostgres(tc.in); got != tc.want {
			t.Errorf("toPostgres(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:s3cret@h:5432/db":                    "postgres://u:xxxxx@h:5432/db",
		"postgres://u@h/db?password=s3cret&sslmode=verify": "postgres://u@h/db?password=xxxxx&sslmode=verify",
		"postgresql://h/db?sslpassword=s3cret":             "postgresql://h/db?sslpassword=xxxxx",
		"postgres://u@/db?host=/tmp/pg":                    "postgres://u@/db?host=/tmp/pg",
		"memory.db":                                        "memory.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
