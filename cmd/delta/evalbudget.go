package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/eval"
)

// evalBudgets reads an eval's --budget: one number, or with several a
// list (--budget 2000,4000) or the flag repeated. A value from a parent
// command or from DELTA_MEMORY_BUDGET may be a list too. Without one it is
// eval.DefaultBudget.
func evalBudgets(c *cli.Context, e env, several bool) ([]int, error) {
	var given []setting
	if several && slices.Contains(c.LocalFlagNames(), "budget") {
		for _, v := range c.StringSlice("budget") {
			given = append(given, setting{value: v, flag: "budget"})
		}
	} else if b := globalSetting(c, e, "budget"); b.value != "" {
		given = append(given, b)
	}
	if len(given) == 0 {
		return []int{eval.DefaultBudget}, nil
	}
	var out []int
	for _, g := range given {
		parts := strings.Split(g.value, ",")
		if len(parts) > 1 && !several {
			return nil, g.invalid("one whole number of tokens (only eval trajectories takes several)", "4000")
		}
		for _, part := range parts {
			one := g
			one.value = strings.TrimSpace(part)
			n, err := one.atLeast(500, "tokens", "4000")
			if err != nil {
				return nil, err
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// severalBudgets gives a command's --budget several values: the global
// flag becomes a list, with the same environment variable.
func severalBudgets(c *cli.Command) *cli.Command {
	for i, f := range c.Flags {
		if slices.Contains(f.Names(), "budget") {
			c.Flags[i] = &cli.StringSliceFlag{Name: "budget",
				Usage: "context window budgets in tokens, a list (2000,4000,8000) or the flag repeated (default 4000) [$DELTA_MEMORY_BUDGET]"}
		}
	}
	return c
}
