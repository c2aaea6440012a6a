package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeBlock returns the lines of the README's code block that holds a
// line starting with mark, or else the first one after such a line.
func readmeBlock(t *testing.T, mark string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	in, after := false, false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "```") && in:
			if after || slices.ContainsFunc(block, func(b string) bool { return strings.HasPrefix(b, mark) }) {
				return block
			}
			in = false
		case strings.HasPrefix(l, "```"):
			in, block = true, nil
		case in:
			block = append(block, l)
		case strings.HasPrefix(l, mark):
			after = true
		}
	}
	t.Fatalf("the README has no code block with or after a line starting %q", mark)
	return nil
}

// excerptLine turns an excerpt's line into a pattern for a whole output
// line: "…" stands for anything the excerpt leaves out (a time, a path),
// and the demo's example directory for the one the run made.
func excerptLine(line string) *regexp.Regexp {
	p := regexp.QuoteMeta(strings.TrimRight(line, " "))
	p = strings.ReplaceAll(p, "…", ".*?")
	p = strings.ReplaceAll(p, regexp.QuoteMeta("/tmp/delta-memory-demo-123"), `\S+`)
	return regexp.MustCompile("^" + p + "$")
}

// checkExcerpt fails unless every line of the excerpt (but a lone "…") is
// a line of out, in the same order: what the README shows is what the
// command prints.
func checkExcerpt(t *testing.T, name string, excerpt []string, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	at := 0
	for _, l := range excerpt {
		if strings.TrimSpace(l) == "…" || strings.TrimSpace(l) == "" {
			continue
		}
		re := excerptLine(l)
		found := false
		for ; at < len(lines); at++ {
			if re.MatchString(strings.TrimRight(lines[at], " ")) {
				found, at = true, at+1
				break
			}
		}
		if !found {
			t.Errorf("the README's %s excerpt shows a line the run does not print (in this order):\n%s\nthe run printed:\n%s", name, l, out)
			return
		}
	}
}

// TestREADMESimulateExcerpt runs the README's simulate example and checks
// its excerpt against the output.
func TestREADMESimulateExcerpt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	block := readmeBlock(t, "$ delta memory simulate")
	if len(block) == 0 || !strings.HasPrefix(block[0], "$ delta memory simulate ") {
		t.Fatalf("the simulate block starts with %q", block)
	}
	args := strings.Fields(strings.TrimPrefix(block[0], "$ delta "))
	for i, a := range args {
		if strings.HasPrefix(a, "testdata/") {
			args[i] = "../../" + a
		}
	}
	out, stderr, code := b.run(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	checkExcerpt(t, "simulate", block[1:], out)
}
