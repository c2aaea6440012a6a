package main

import (
	"io"
	"os"
)

// env is what the CLI takes from the process, injected so tests can run the
// whole CLI in-process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrTTY says whether stderr is a terminal, for progress output.
	stderrTTY bool
}

func newEnv() env {
	return env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stderrTTY: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
