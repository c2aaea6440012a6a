package main

import (
	"flag"
	"io"

	"github.com/urfave/cli/v2"
)

// urfave/cli gives every app and command the same help and version flags
// (cli.HelpFlag, cli.VersionFlag) and the same help command, and writes
// them as it sets each command up: a *cli.BoolFlag notes its default on
// itself when applied, and a command's setup writes into each of its
// subcommands, the shared help command among them. The binary runs one
// app, but apps run at once (this package's tests, in parallel) wrote
// them at once. Here each app gets help commands of its own (ownHelp), and
// the flags are applied from copies (sharedBoolFlag).

// sharedBoolFlag is a flag every app and command shares, applied without
// writing it: each Apply works on a copy; the rest reads the shared flag,
// which nothing writes.
type sharedBoolFlag struct{ *cli.BoolFlag }

// Apply defines the flag on set, from a copy of the shared flag.
func (f sharedBoolFlag) Apply(set *flag.FlagSet) error {
	c := *f.BoolFlag
	return c.Apply(set)
}

// GetDefaultText says nothing: help prints "--help, -h  show help", as
// urfave/cli does for its own flag (DisableDefaultText, which it reads
// only off a *cli.BoolFlag).
func (f sharedBoolFlag) GetDefaultText() string { return "" }

// helpAction is what urfave/cli's help command does, read off an app set
// up once, before any runs.
var helpAction cli.ActionFunc

func init() {
	cli.HelpFlag = sharedBoolFlag{&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}}
	cli.VersionFlag = sharedBoolFlag{&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version", DisableDefaultText: true}}
	probe := &cli.App{Name: "probe", Writer: io.Discard, ErrWriter: io.Discard}
	probe.Setup()
	if h := probe.Command("help"); h != nil {
		helpAction = h.Action
	}
}

// ownHelp gives each command under cmds, at every depth, the help
// subcommand urfave/cli would give it, made for this app rather than
// shared: a command that has one already is left as it is.
func ownHelp(cmds []*cli.Command) {
	if helpAction == nil {
		// Not found: urfave/cli adds its own, as before.
		return
	}
	for _, c := range cmds {
		if c.Name == "help" {
			continue
		}
		ownHelp(c.Subcommands)
		if c.HideHelp || c.HideHelpCommand || c.Command("help") != nil {
			continue
		}
		if len(c.Subcommands) == 0 && c.CustomHelpTemplate == "" {
			// urfave/cli adds a leaf's help subcommand when the leaf runs,
			// and picks the template of a command with subcommands for a
			// command that has one: "delta memory help show" would lose
			// show's options.
			c.CustomHelpTemplate = cli.CommandHelpTemplate
		}
		c.Subcommands = append(c.Subcommands, &cli.Command{
			Name:      "help",
			Aliases:   []string{"h"},
			Usage:     "Shows a list of commands or help for one command",
			ArgsUsage: "[command]",
			Action:    helpAction,
			// Else, when it runs, urfave/cli gives the help command its
			// shared help command as a subcommand, and writes to that.
			HideHelpCommand: true,
		})
	}
}
