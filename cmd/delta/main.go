// Command delta is the delta-memory CLI: `delta memory …` imports agent
// journals into SQLite and shows what they hold. Run `delta memory --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/delta-memory/delta-memory"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(memory.BulkGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, newEnv())
	stop()
	os.Exit(code)
}
