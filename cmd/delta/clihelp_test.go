package main

import (
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestTheHelpFlagsAreNotWrittenWhenApplied: every command of every app
// applies urfave/cli's global help and version flags, and a *cli.BoolFlag
// writes itself when applied, so apps run at once wrote one flag at once
// (what `go test -race` reported of this package's parallel tests). Apps
// run here side by side must leave both flags as they were, and help must
// read as before. (Under -race, the help commands' sharing shows too.)
func TestTheHelpFlagsAreNotWrittenWhenApplied(t *testing.T) {
	var before []cli.BoolFlag
	for _, f := range []cli.Flag{cli.HelpFlag, cli.VersionFlag} {
		s, ok := f.(sharedBoolFlag)
		if !ok {
			t.Fatalf("urfave/cli's %s flag is a %T, which writes itself when applied", f.Names()[0], f)
		}
		before = append(before, *s.BoolFlag)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	asks := [][]string{{"memory", "show", "--help"}, {"memory", "help", "show"}, {"memory", "show", "help"}, {"memory", "show", "-h"}}
	outs := make([]string, len(asks))
	for i, args := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := setup(t)
			outs[i], _, _ = b.run(t, ctx, args...)
		}()
	}
	b := setup(t)
	if out, _, code := b.run(t, ctx, "--version"); code != exitOK || !strings.HasPrefix(out, "delta ") {
		t.Errorf("delta --version: code %d, %q", code, out)
	}
	wg.Wait()
	for i, f := range []cli.Flag{cli.HelpFlag, cli.VersionFlag} {
		if got := *f.(sharedBoolFlag).BoolFlag; !reflect.DeepEqual(got, before[i]) {
			t.Errorf("the %s flag changed when applied:\n%+v\nwas\n%+v", f.Names()[0], got, before[i])
		}
	}
	for i, out := range outs {
		if !strings.Contains(out, "delta memory show - ") || !strings.Contains(out, "OPTIONS:") || !strings.Contains(out, "--help, -h") ||
			!strings.Contains(out, "show help\n") || strings.Contains(out, "show help (default") {
			t.Errorf("delta %s does not print show's help, its options ending with the help flag:\n%s", strings.Join(asks[i], " "), out)
		}
	}
}

// TestEachAppHasHelpCommandsOfItsOwn: urfave/cli's one help command, which
// it writes into as it sets each command up, is not any command's; the
// commands list help as before.
func TestEachAppHasHelpCommandsOfItsOwn(t *testing.T) {
	var e env
	a, b := newApp(e), newApp(e)
	for _, path := range [][]string{{"memory"}, {"memory", "show"}, {"memory", "eval"}, {"memory", "eval", "locomo"}} {
		ca, cb := a.Command(path[0]), b.Command(path[0])
		for _, name := range path[1:] {
			if ca == nil || cb == nil {
				break
			}
			ca, cb = ca.Command(name), cb.Command(name)
		}
		if ca == nil || cb == nil {
			t.Fatalf("delta %s: no such command", strings.Join(path, " "))
		}
		ha, hb := ca.Command("help"), cb.Command("h")
		if ha == nil || hb == nil || ha == hb {
			t.Errorf("delta %s: help commands %p and %p, want one for each app", strings.Join(path, " "), ha, hb)
		}
	}
	if a.Command("help") != nil {
		t.Error("delta lists a help command; it hides it (HideHelpCommand)")
	}
}

// TestAHelpCommandGetsNoSharedHelp: a help command that runs ("delta
// memory help show", "delta memory show help") is set up as a command, and
// urfave/cli gives a command without a help subcommand its own shared one,
// writing to it as it sets up: apps run at once wrote it at once. Ours
// hide their help command, so nothing under any app is the shared one.
func TestAHelpCommandGetsNoSharedHelp(t *testing.T) {
	probe := &cli.App{Name: "probe", Writer: io.Discard, ErrWriter: io.Discard}
	probe.Setup()
	shared := probe.Command("help")
	if shared == nil {
		t.Skip("urfave/cli gave the probe app no help command to compare with")
	}
	for _, args := range [][]string{{"memory", "help", "show"}, {"memory", "show", "help"}, {"memory", "eval", "help", "locomo"}} {
		var out strings.Builder
		e := env{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
		app := newApp(e)
		if err := app.RunContext(context.Background(), hoistFlags(app, append([]string{"delta"}, args...))); err != nil {
			t.Fatalf("delta %s: %v", strings.Join(args, " "), err)
		}
		var walk func(path string, cs []*cli.Command)
		walk = func(path string, cs []*cli.Command) {
			for _, c := range cs {
				if c == shared {
					t.Errorf("after delta %s: %s holds urfave/cli's shared help command", strings.Join(args, " "), path)
				}
				walk(path+" "+c.Name, c.Subcommands)
			}
		}
		walk("delta", app.Commands)
	}
}
