package simulate

import (
	"fmt"
	"unicode/utf8"

	"github.com/delta-memory/delta-memory/scoring"
	"github.com/delta-memory/delta-memory/window"
)

// Prices are what a provider charges for input tokens, in US dollars per
// million. Output tokens are left out: the agent writes the same answers
// whatever its context is made of.
type Prices struct {
	// Model names whose prices these are, for the report.
	Model string `json:"model"`
	// Input is the price of an input token the provider's prompt cache
	// does not hold; Cached the price of one it reuses from the previous
	// call's prefix.
	Input  float64 `json:"input_per_mtok"`
	Cached float64 `json:"cached_input_per_mtok"`
}

// DefaultPrices are OpenAI's list prices for gpt-5 as published at its
// launch in August 2025: $1.25 per million input tokens, $0.125 per million
// cached input tokens.
var DefaultPrices = Prices{Model: "gpt-5 (OpenAI list prices, August 2025)", Input: 1.25, Cached: 0.125}

// label names the prices in a report line.
func (p Prices) label() string {
	name := p.Model
	if name == "" {
		name = "custom prices"
	}
	return fmt.Sprintf("%s, $%g/M input, $%g/M cached", name, p.Input, p.Cached)
}

// cost is the price in dollars of a call of input tokens, cached of which
// the prompt cache reuses.
func (p Prices) cost(input, cached int) float64 {
	return (float64(input-cached)*p.Input + float64(cached)*p.Cached) / 1e6
}

// Break is where a call's memory file first differs from the previous
// one's: the end of what a prompt cache reuses.
type Break struct {
	// Offset is the byte offset of the first difference; the whole previous
	// file's length when the new one merely extends it.
	Offset int `json:"offset"`
	// Partition and Source name the section of the new file at Offset
	// ("" when the new file ends there).
	window.Place
}

// cacheUse says, for a call's memory file cur whose first shared bytes
// are the previous one's (window.SharedPrefix), where they first differ and
// how many tokens the shared prefix holds. A prompt cache reuses that
// prefix and nothing after it, the newest iterations the runtime shows
// after the file included, since they move on every call.
func cacheUse(tok scoring.Tokenizer, shared int, cur string, cw *window.Context) (Break, int) {
	i := shared
	// Cut at a character boundary: the tokenizer counts whole characters.
	for i > 0 && i < len(cur) && !utf8.RuneStart(cur[i]) {
		i--
	}
	b := Break{Offset: i}
	if cw != nil {
		b.Place = cw.PlaceAt(i)
	}
	if i == 0 {
		return b, 0
	}
	return b, tok.Count(cur[:i])
}
