package main

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"
)

// setting is a value given by a flag or, when the flag was not typed, by
// the environment variable that stands in for it. It remembers which, so
// that an error names what the user set: DELTA_MEMORY_KEEP_RECENT=abc is
// not reported as --keep-recent.
type setting struct {
	value string
	// flag is the flag's name without dashes; env is the variable's name,
	// set when the value came from it.
	flag, env string
}

// flagOrEnv reads a command's own flag, else the environment variable
// that stands in for it.
func flagOrEnv(c *cli.Context, e env, flag, envVar string) setting {
	if v := c.String(flag); v != "" {
		return setting{value: v, flag: flag}
	}
	if v := e.getenv(envVar); v != "" {
		return setting{value: v, flag: flag, env: envVar}
	}
	return setting{flag: flag}
}

// globalSetting reads a global flag from the innermost command where the
// user typed it, else from its environment variable.
func globalSetting(c *cli.Context, e env, name string) setting {
	for _, x := range c.Lineage() {
		if slices.Contains(x.LocalFlagNames(), name) {
			return setting{value: x.String(name), flag: name}
		}
	}
	for _, g := range globals {
		if g.name == name {
			if v := e.getenv(g.env); v != "" {
				return setting{value: v, flag: name, env: g.env}
			}
		}
	}
	return setting{flag: name}
}

// invalid is the usage error for a value that does not fit: want says
// what fits, and example is a value that does.
func (s setting) invalid(want, example string) error {
	if s.env != "" {
		return usagef(fmt.Sprintf("set %s=%s, or unset it", s.env, example), "%s=%q: want %s", s.env, s.value, want)
	}
	return usagef(fmt.Sprintf("pass e.g. --%s %s", s.flag, example), "--%s %q: want %s", s.flag, s.value, want)
}

// atLeast parses a whole number of at least low; example is one that fits.
func (s setting) atLeast(low int, what, example string) (int, error) {
	n, err := strconv.Atoi(s.value)
	if err != nil || n < low {
		return 0, s.invalid(fmt.Sprintf("a whole number of %s >= %d", what, low), example)
	}
	return n, nil
}
