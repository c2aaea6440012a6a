package main

import (
	"github.com/urfave/cli/v2"
)

// toolDefs are the OpenAI function-tool definitions an agent is given to
// drive its own memory.
func toolDefs() []map[string]any {
	fn := func(name, desc string, props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{
			"name": name, "description": desc,
			"parameters": map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false},
		}}
	}
	return []map[string]any{
		fn("recall_memory",
			"Search your own earlier iterations, including ones folded out of your context, and bring the best matches back into the Retrieved memory section for the next few steps. Use exact file paths, identifiers or error text when you have them. To answer a question from memory, pass the question itself and no limit: your next context then gives most of its room to what the search found.",
			map[string]any{
				"keywords": map[string]any{"type": "string", "description": "words, file paths, identifiers or error text to look for, e.g. \"data/cache_3d5a4.json RETRY_BUDGET\""},
				"limit":    map[string]any{"type": "integer", "minimum": 1, "maximum": 20, "description": "most matches to bring back (default: as many as your context has room for)"},
			}, "keywords"),
		fn("bookmark_memory",
			"Keep one of your iterations in your context, with a note on why it matters, even after older history is folded away.",
			map[string]any{
				"iteration": map[string]any{"type": "integer", "minimum": 1, "description": "the iteration number to keep"},
				"note":      map[string]any{"type": "string", "description": "why it matters, in a few words"},
			}, "iteration"),
	}
}

func toolsCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "tools",
		Usage: "print OpenAI tool definitions for recall_memory and bookmark_memory",
		Description: `Prints a JSON array of chat-completions tool definitions, ready to pass as "tools".
Each maps onto a command: recall_memory(keywords, limit) runs
"delta memory retrieve --limit LIMIT --keyword KEYWORDS", and bookmark_memory(iteration, note)
runs "delta memory bookmark --iteration ITERATION --note NOTE". The README shows the Delta
Engine config.yaml wiring.

Examples:
   delta memory tools
   delta memory tools > memory-tools.json`,
		Action: func(c *cli.Context) error {
			return writeJSON(e, toolDefs())
		},
	})
}
