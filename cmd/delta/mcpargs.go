package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// toolArgs are a tool call's arguments, read one by one so that a wrong
// one is reported by name, with what the tool wants instead, rather than
// as a JSON decoding error the model cannot act on.
type toolArgs struct {
	tool string
	raw  map[string]json.RawMessage
}

// parseToolArgs reads a tool call's arguments object and rejects names the
// tool does not take (its schema sets additionalProperties to false).
func parseToolArgs(tool string, data json.RawMessage, known ...string) (toolArgs, error) {
	a := toolArgs{tool: tool, raw: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) > 0 && !bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		if err := json.Unmarshal(data, &a.raw); err != nil {
			return a, fmt.Errorf("%s: the arguments must be a JSON object: %v", tool, err)
		}
	}
	for name := range a.raw {
		if !slices.Contains(known, name) {
			takes := "no arguments"
			if len(known) > 0 {
				takes = "only " + strings.Join(known, ", ")
			}
			return a, fmt.Errorf("%s: unknown argument %q; it takes %s", tool, name, takes)
		}
	}
	return a, nil
}

// has reports whether the call gave name a value other than null.
func (a toolArgs) has(name string) bool {
	v, ok := a.raw[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str returns the string argument name. A required one must hold more than
// blanks; example shows a good value in the error.
func (a toolArgs) str(name string, required bool, example string) (string, error) {
	if !a.has(name) {
		if required {
			return "", fmt.Errorf("%s: missing argument %q; pass it as a string, e.g. %q", a.tool, name, example)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.raw[name], &s); err != nil {
		return "", fmt.Errorf("%s: argument %q must be a string, e.g. %q; got %s", a.tool, name, example, a.raw[name])
	}
	if required && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s: argument %q is empty; pass some text, e.g. %q", a.tool, name, example)
	}
	return s, nil
}

// words returns the argument name as search keywords: a string, as the
// tool's schema asks, or a list of strings, which models often send for an
// argument named in the plural; each element is then one keyword, as a
// repeated --keyword. A required one must hold more than blanks.
func (a toolArgs) words(name string, required bool, example string) ([]string, error) {
	var list []string
	if a.has(name) && json.Unmarshal(a.raw[name], &list) == nil {
		list = slices.DeleteFunc(list, func(w string) bool { return strings.TrimSpace(w) == "" })
		if required && len(list) == 0 {
			return nil, fmt.Errorf("%s: argument %q is empty; pass some text, e.g. %q", a.tool, name, example)
		}
		return list, nil
	}
	var one string
	if a.has(name) && json.Unmarshal(a.raw[name], &one) != nil {
		return nil, fmt.Errorf("%s: argument %q must be a string or a list of strings, e.g. %q; got %s", a.tool, name, example, a.raw[name])
	}
	s, err := a.str(name, required, example)
	if err != nil {
		return nil, err
	}
	if s == "" {
		return nil, nil
	}
	return []string{s}, nil
}

// integer returns the integer argument name, within [lo, hi] (hi 0: no
// upper bound), or 0 when it is optional and absent. A whole number sent
// as a float (3.0) is accepted; anything else is an error naming the range.
func (a toolArgs) integer(name string, required bool, lo, hi int) (int, error) {
	want := fmt.Sprintf("an integer of at least %d", lo)
	if hi > 0 {
		want = fmt.Sprintf("an integer from %d to %d", lo, hi)
	}
	if !a.has(name) {
		if required {
			return 0, fmt.Errorf("%s: missing argument %q; pass %s", a.tool, name, want)
		}
		return 0, nil
	}
	var f float64
	if err := json.Unmarshal(a.raw[name], &f); err != nil || f != float64(int(f)) {
		return 0, fmt.Errorf("%s: argument %q must be %s; got %s", a.tool, name, want, a.raw[name])
	}
	n := int(f)
	if n < lo || (hi > 0 && n > hi) {
		return 0, fmt.Errorf("%s: argument %q is %d; pass %s", a.tool, name, n, want)
	}
	return n, nil
}
