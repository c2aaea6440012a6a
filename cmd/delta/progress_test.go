package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/eval"
)

// TestEvalProgressOffATerminal checks that an eval whose stderr is not a
// terminal prints nothing in its first minute, then a plain line (no
// terminal codes) at most once a minute.
func TestEvalProgressOffATerminal(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	now := t0
	var out bytes.Buffer
	p := &progress{w: &out, label: "longmemeval", clock: func() time.Time { return now }}
	step := p.evalProgress("questions")
	for i, at := range []time.Duration{10 * time.Second, 59 * time.Second, 61 * time.Second, 90 * time.Second, 125 * time.Second, 150 * time.Second} {
		now = t0.Add(at)
		step(eval.Progress{Done: i + 1, Total: 480, Run: "q"})
	}
	want := "longmemeval: 3 of 480 questions done, 1m1s\nlongmemeval: 5 of 480 questions done, 2m5s\n"
	if out.String() != want {
		t.Errorf("progress off a terminal:\n%q\nwant\n%q", out.String(), want)
	}
	if strings.Contains(out.String(), "\033") {
		t.Errorf("terminal codes off a terminal: %q", out.String())
	}
}
