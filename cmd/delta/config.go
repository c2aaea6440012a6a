package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/internal/sqldb"
)

func configCommand(e env) *cli.Command {
	return command(&cli.Command{
		Name:  "config",
		Usage: "print the settings in force: the defaults, merged with the settings file, then flags and environment",
		Description: `Prints the fold, recall and summarizer settings every other command would use, as a
settings file you can copy. A key the file sets is marked with the file's name: every key it
leaves out keeps its default, section by section. The database is not opened.

Examples:
   delta memory config
   delta memory config --config my-settings.yaml --budget 64000
   delta memory config --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: `print {"file", "set", "settings"} as JSON`},
		},
		Action: func(c *cli.Context) error {
			cfg, err := engineConfig(c, e)
			if err != nil {
				return err
			}
			st, err := memory.ResolveSettings(cfg)
			if err != nil {
				return err
			}
			out := effectiveFile(st)
			if c.Bool("json") {
				return writeJSON(e, map[string]any{"file": st.File.File, "set": nonNil(st.File.Set), "settings": out})
			}
			var doc yaml.Node
			if err := doc.Encode(out); err != nil {
				return err
			}
			markSources(&doc, "", st, global(c, e, "budget") != "")
			src := "no settings file (" + memory.SettingsPath(cfg.DBPath) + " does not exist): the defaults"
			if sqldb.IsPostgres(cfg.DBPath) {
				src = "no settings file (on PostgreSQL, name one with --config): the defaults"
			}
			if cfg.ConfigFile != "" || st.File.File != "" {
				src = "defaults, merged with " + st.File.File
			}
			fmt.Fprintf(e.stdout, "# settings in force: %s, then flags and environment\n", src)
			enc := yaml.NewEncoder(e.stdout)
			enc.SetIndent(2)
			if err := enc.Encode(&doc); err != nil {
				return err
			}
			return enc.Close()
		},
	})
}

// effectiveFile is the settings file that gives st: the merged file, with
// the budget, tokenizer and summarizer settings that flags and
// environment variables changed.
func effectiveFile(st memory.Settings) memory.FileConfig {
	out := st.File
	out.Budget, out.Tokenizer = st.Fold.Budget, st.Tokenizer
	out.LLM = memory.LLMFileSection(st.LLM)
	return out
}

// markSources comments each key of the settings document with where its
// value came from, when not from the defaults.
func markSources(n *yaml.Node, prefix string, st memory.Settings, budgetFlag bool) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			markSources(c, prefix, st, budgetFlag)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	file := filepath.Base(st.File.File)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := prefix + k.Value
		switch {
		case path == "budget" && budgetFlag:
			k.LineComment = "--budget or DELTA_MEMORY_BUDGET"
		case st.File.IsSet(path):
			k.LineComment = file
		case path == "shares.working" && st.File.Shares.Working != memory.DefaultFileConfig().Shares.Working:
			k.LineComment = "lowered from the default so that the shares add up to 1"
		case path == "max_output_tokens" && st.File.MaxOutputTokens == 0:
			k.LineComment = fmt.Sprintf("0: scaled with the budget, %d tokens at %d", st.Fold.OutputCap(), st.Fold.Budget)
		}
		// Flags and environment variables set the llm section as often as
		// the file does: it shows the result, unmarked.
		if path == "llm" {
			k.LineComment = "after flags and environment variables"
			continue
		}
		if v.Kind == yaml.MappingNode {
			markSources(v, path+".", st, budgetFlag)
		}
	}
}
