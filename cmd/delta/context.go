package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
	"github.com/delta-memory/delta-memory/recall"
	"github.com/delta-memory/delta-memory/window"
)

func contextCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "context",
		Usage: "print the context window to send to the model, under --budget tokens",
		Description: `Compiles the run's context window from the journal and its folds: Static (system prompt,
task), Long-term (L3/L4 chapters), Short-term (L1/L2 summaries), Working (the newest iterations
in full), Retrieved and Dynamic (recent errors, file state, bookmarks, the current goal, last).

Formats:
   markdown   one document with a heading per partition (default)
   messages   a JSON array of OpenAI chat messages: the system prompt, folded memory, the task,
              the Working iterations as native assistant/tool messages (every tool_call has its
              tool message), then Retrieved and Dynamic as a closing user message
   json       the compiled context for inspection: partitions, sections and where each came from

With --subtask, it builds the context of a sub-agent the run hands a piece of work to,
under its own --budget: the run's task, the subtask, what recall finds for the subtask, and
the runtime state (errors, files, bookmarks, the goal); not the parent's summaries or newest
iterations. It changes nothing in the memory: no recall is recorded.

Examples:
   delta memory context
   delta memory context --subtask "configure the metrics server port" --budget 4000
   delta memory context --format messages --budget 8000 > messages.json
   delta memory context --format json | jq '.partitions[] | {name, tokens}'
   delta memory context --system agent/system_prompt.md --output .delta/context_artifacts/memory.md`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "markdown, messages or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to FILE (atomically) instead of stdout"},
			&cli.StringFlag{Name: "system", Usage: "system prompt FILE for the Static partition (default: the run's own)"},
			&cli.StringFlag{Name: "subtask", Usage: "build a sub-agent's context for this TEXT: the task, the subtask, what recall finds for it, the runtime state"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := oneOf(c.Command.HelpName, "format", format, "markdown", "messages", "json"); err != nil {
				return err
			}
			var system string
			if p := c.String("system"); p != "" {
				b, err := os.ReadFile(p)
				if err != nil {
					return withHint(fmt.Errorf("read system prompt: %w", err), "check the --system path")
				}
				system = string(b)
			}
			eng, run, err := openRun(c, e)
			if err != nil {
				return err
			}
			defer eng.Close()
			cx, err := contextFor(c, eng, run, system)
			if err != nil {
				return err
			}
			var out []byte
			switch format {
			case "markdown":
				out = []byte(cx.Markdown())
			case "messages":
				if out, err = json.MarshalIndent(cx.Messages, "", "  "); err != nil {
					return err
				}
				out = append(out, '\n')
			case "json":
				if out, err = json.MarshalIndent(cx, "", "  "); err != nil {
					return err
				}
				out = append(out, '\n')
			}
			if p := c.String("output"); p != "" {
				return writeAtomic(p, out)
			}
			_, err = e.stdout.Write(out)
			return err
		},
	})
}

// writeAtomic writes data to path through a temporary file and a rename,
// so a reader never sees half a file. It creates the directory.
func writeAtomic(path string, data []byte) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("name a file, e.g. "+filepath.Join(path, "memory.md"), "write %s: it is a directory", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file private (0600); the output is meant to be
	// read by the agent's runtime and the user, like any file they write.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// contextFor builds the run's window, or a sub-agent's context when
// --subtask is given.
func contextFor(c *cli.Context, eng *memory.Engine, run journal.Run, system string) (*window.Context, error) {
	if !c.IsSet("subtask") {
		return eng.Context(c.Context, run, memory.ContextOptions{SystemPrompt: system})
	}
	cx, err := eng.SubtaskContext(c.Context, run, c.String("subtask"), system)
	if errors.Is(err, recall.ErrEmptyQuery) {
		return nil, usagef(`pass the subtask in words, e.g. --subtask "fix the flaky cache test"`, "--subtask: %v", err)
	}
	return cx, err
}
