// Command delta is the delta-memory CLI: `delta memory …` imports agent
// journals into SQLite and shows what they hold. Run `delta memory --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, newEnv())
	stop()
	os.Exit(code)
}
