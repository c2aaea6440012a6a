package main

import (
	"io"
	"os"
)

// env is what the CLI takes from the process, injected so tests can run the
// whole CLI in-process.
type env struct {
	// stdin is read by the commands that take input on it (mcp); nil reads
	// as empty.
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrTTY says whether stderr is a terminal, for progress output;
	// stdoutTTY whether stdout is, for colour.
	stderrTTY, stdoutTTY bool
	// exits says that the process ends when the command returns, so that a
	// command may leave to the exit what it releases (see engine.Leave);
	// false when tests run the CLI in-process.
	exits bool
}

// color reports whether to colour stdout: a terminal, NO_COLOR unset
// (https://no-color.org), and a TERM that is not "dumb".
func (e env) color() bool {
	return e.stdoutTTY && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

func newEnv() env {
	return env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stderrTTY: isTerminal(os.Stderr), stdoutTTY: isTerminal(os.Stdout), exits: true}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
