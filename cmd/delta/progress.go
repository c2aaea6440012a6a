package main

import (
	"fmt"
	"io"
	"time"

	"github.com/delta-memory/delta-memory/simulate"
)

// progressMinBytes is the file size from which import reports progress:
// smaller files finish before a progress line would be worth reading.
const progressMinBytes = 4 << 20

// progress prints a self-overwriting status line to a terminal, at most
// every 100 ms. It prints nothing when stderr is not a terminal.
type progress struct {
	w     io.Writer
	label string
	on    bool
	last  time.Time
	drawn bool
	// clock, when set, stands for time.Now in evalProgress (tests).
	clock func() time.Time
}

// plainEvery is how often an eval whose stderr is not a terminal prints
// a progress line.
const plainEvery = time.Minute

func newProgress(e env, label string) *progress {
	return &progress{w: e.stderr, label: label, on: e.stderrTTY}
}

// update is an ImportOptions.Progress callback.
func (p *progress) update(done, total int64) {
	if !p.on || total < progressMinBytes {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = now
	pct := 100 * float64(done) / float64(max(total, 1))
	fmt.Fprintf(p.w, "\r\033[K%s: %5.1f%% (%.1f of %.1f MB)", p.label, pct, float64(done)/1e6, float64(total)/1e6)
	p.drawn = true
}

// countMin is how many iterations a fold phase must have to show progress.
const countMin = 500

// count is a fold.Scheduler.OnProgress callback: iterations noted so far.
func (p *progress) count(done, total int) {
	if !p.on || total < countMin {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "\r\033[K%s: %s of %s iterations", p.label, simulate.Thousands(done), simulate.Thousands(total))
	p.drawn = true
}

// done clears the status line.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
