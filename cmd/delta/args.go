package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// hoistFlags moves the flags a user typed after a leaf command's positional
// arguments in front of them, so `delta memory unfold L2-1-10 --run r` works
// like `delta memory unfold --run r L2-1-10`: urfave/cli v2 stops parsing
// flags at the first positional argument. Whether a flag takes a value comes
// from the command's own flag definitions. After "--" nothing is moved.
func hoistFlags(app *cli.App, args []string) []string {
	cmds, i := app.Commands, 1
	var leaf *cli.Command
	// Walk down the command names, skipping flags before them.
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			i += 1 + valueArity(findFlag(app.Flags, a), a)
			continue
		}
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(a) {
				next = c
			}
		}
		if next == nil {
			break
		}
		leaf, cmds = next, subcommands(next)
		i++
		if len(cmds) == 0 {
			break
		}
	}
	if leaf == nil || len(subcommands(leaf)) > 0 {
		return args
	}
	var flags, positional []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			positional = append(positional, args[j:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if valueArity(findFlag(leaf.Flags, a), a) == 1 && j+1 < len(args) {
			flags = append(flags, args[j+1])
			j++
		}
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	return append(out, positional...)
}

// findFlag returns the flag an argument such as "--run=x" or "-i" names.
func findFlag(flags []cli.Flag, arg string) cli.Flag {
	name := strings.TrimLeft(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// valueArity is 1 when the flag takes the next argument as its value.
func valueArity(f cli.Flag, arg string) int {
	if f == nil || strings.Contains(arg, "=") {
		return 0
	}
	if _, ok := f.(*cli.BoolFlag); ok {
		return 0
	}
	return 1
}

// subcommands returns c's subcommands but its help command (ownHelp),
// which every command has: a command with no others is a leaf.
func subcommands(c *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, s := range c.Subcommands {
		if s.Name != "help" {
			out = append(out, s)
		}
	}
	return out
}
