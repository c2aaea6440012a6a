package journal_test

import (
	"os"
	"testing"

	"github.com/delta-memory/delta-memory/internal/pgtest"
)

// TestMain stops the PostgreSQL server the suite started, if it ran on
// PostgreSQL (pgtest.Target).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
