package synth

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"unicode/utf8"
)

// out accumulates the text of one tool output. Fill functions append lines
// while more() reports true; appends stop once the text passes limit, so a
// small output cap keeps generation cheap.
type out struct {
	b      []byte
	target int // planned size of the whole output
	limit  int // appends beyond this length are dropped
}

// more reports whether the output is still below its planned size and limit.
func (o *out) more() bool { return len(o.b) < o.target && len(o.b) <= o.limit }

// line appends s and a newline.
func (o *out) line(s string) {
	if len(o.b) <= o.limit {
		o.b = append(o.b, s...)
		o.b = append(o.b, '\n')
	}
}

// linef appends a formatted line.
func (o *out) linef(format string, a ...any) {
	if len(o.b) <= o.limit {
		o.b = fmt.Appendf(o.b, format, a...)
		o.b = append(o.b, '\n')
	}
}

// fillFunc writes the text of one output with r as its randomness.
type fillFunc func(o *out, r *rand.Rand)

// render produces one tool output of about target bytes, capped at
// MaxOutputBytes. It returns the observation text and the size the output
// had before truncation. Each output draws from its own random stream, so
// the cap does not change anything else in the run.
func (g *Generator) render(target int, fill fillFunc) (string, int) {
	b, stopped := g.fill(target, g.cfg.MaxOutputBytes+1, fill)
	total := len(b)
	if stopped && target > total {
		total = target
	}
	return capText(b, total, g.cfg.MaxOutputBytes), total
}

// renderTrailer is render for outputs that must end with trailer (an exit
// status): the cap applies to the text before it.
func (g *Generator) renderTrailer(target int, fill fillFunc, trailer string) (string, int) {
	max := g.cfg.MaxOutputBytes - len(trailer)
	if trailer == "" || max < len(trailer) {
		return g.render(target, fill)
	}
	b, stopped := g.fill(target, max+1, fill)
	total := len(b)
	if stopped && target > total {
		total = target
	}
	return capText(b, total, max) + trailer, total + len(trailer)
}

// renderContent produces file content for write_file: whole lines ending in
// a newline, at most MaxOutputBytes long (a single over-long line is cut).
func (g *Generator) renderContent(target int, fill fillFunc) string {
	max := g.cfg.MaxOutputBytes
	b, _ := g.fill(target, max, fill)
	if len(b) >= max {
		b = b[:max-1]
		if i := bytes.LastIndexByte(b, '\n'); i > 0 {
			b = b[:i]
		}
	}
	return string(b) + "\n"
}

// fill runs fill on the shared output buffer with a freshly seeded stream and
// returns the text without trailing newlines, and whether it hit the limit.
func (g *Generator) fill(target, limit int, fill fillFunc) ([]byte, bool) {
	g.calls++
	g.opcg.Seed(g.cfg.Seed^outputSalt, g.calls)
	o := &g.obuf
	o.b, o.target, o.limit = o.b[:0], target, limit
	fill(o, g.orng)
	stopped := len(o.b) > limit
	return bytes.TrimRight(o.b, "\n"), stopped
}

// capText returns b as a string of at most max bytes. Longer text is cut at a
// UTF-8 boundary and ends with a marker giving the omitted size.
func capText(b []byte, total, max int) string {
	if len(b) <= max {
		return string(b)
	}
	keep := max
	var marker string
	for range 3 { // the marker's length depends on the number it carries
		marker = fmt.Sprintf("\n[... output truncated: %d of %d bytes omitted]", total-keep, total)
		keep = max - len(marker)
	}
	if keep <= 0 {
		keep, marker = max, ""
	}
	for keep > 0 && !utf8.RuneStart(b[keep]) {
		keep--
	}
	return string(b[:keep]) + marker
}

// Output sizes, in bytes.
func sizeTiny(r *rand.Rand) int   { return between(r, 20, 160) }
func sizeSmall(r *rand.Rand) int  { return between(r, 160, 900) }
func sizeMedium(r *rand.Rand) int { return between(r, 1200, 6000) }
func sizeLarge(r *rand.Rand) int  { return between(r, 9000, 20000) }
func sizeHuge(r *rand.Rand) int   { return between(r, 20000, 46000) }

// sizeFile is the size of a source file the agent reads: mostly a few KB,
// sometimes large, rarely huge.
func sizeFile(r *rand.Rand) int {
	switch n := r.IntN(100); {
	case n < 8:
		return sizeHuge(r)
	case n < 28:
		return sizeLarge(r)
	default:
		return sizeMedium(r)
	}
}
