package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/delta-memory/delta-memory/eval"
)

// probesFlag is --questions for eval trajectories, whose questions are
// probes; a flag of its own per command, as questionsFlag.
func probesFlag() cli.Flag {
	return &cli.StringFlag{Name: "questions", Usage: "also write one JSON line per probe and budget to `FILE`: its steps, targets and evidence terms, which of them each system's window held, whether that holds the probe, and the window's size"}
}

// cvFold is what --cv does for eval trajectories.
var cvFold = fmt.Sprintf("also cross-validate the fold settings: each quarter of the runs is replayed with the setting that did best on the others (%d settings, each replayed once more)", len(eval.FoldCandidates))

func evalTrajectoriesCommand(e env) *cli.Command {
	return severalBudgets(command(&cli.Command{
		Name:      "trajectories",
		Usage:     "whether the window keeps what an agent's step needs when it comes back to an earlier one",
		ArgsUsage: "FILE|DIR|synth:N",
		Description: `FILE holds agent transcripts: OpenAI chat messages (a JSON array, {"messages": [...]} or
JSONL), a JSON list of objects each with a "traj" or "messages" array (tau-bench's shape; one
transcript per object, named FILE#task_id), or a Delta journal.jsonl. DIR is every *.json and
*.jsonl in it, in name order. synth:N generates N runs of a coding agent (seeds 1 to N, 300
iterations each; synth:NxITERATIONS sets the length), each with a 1,700-token system prompt.
Each transcript is imported once to read its steps: the engine's iterations.

A probe is a step whose tool call names a target (a string argument: a path, an id, a date, a
flight number) that an earlier step's call named, the latest such step. Its evidence is up to 8
words of that earlier step's tool output that the system prompt, the task and the probe's own
calls do not hold, the rarest first (its calls' words when its output has none; a probe with no
evidence is left out and counted). Each transcript is then replayed into a fresh engine at each
budget, step by step as it was written, and at each probe the window is built for the pending
call, its results not in yet: the probe is held when at least half of its evidence is in the
window outside Static. The baselines see the same state under the same budget and tokenizer,
JSON outputs compacted as the engine shows them, the system prompt and task taking what they
need up to 40% of it: recent (the pending step,
then the newest steps in full while they fit) and bm25-steps (the pending step, then the
earlier steps BM25 ranks for its calls, each in full if it fits). Reported per budget, with the
mean window tokens, and by distance: how many steps back the probe reaches.

With --cv, the runs are split in four parts (run i in part i mod 4), and each part is replayed
with the fold setting that did best on the other three: the defaults, pressure.low 0.75 or
0.45, or max_output_tokens 2000 or 500.

Examples:
   delta memory eval trajectories --budget 2000,4000,8000 tau-bench-airline/dev.json
   delta memory eval trajectories --cv --limit 20 transcripts/
   delta memory eval trajectories --budget 2000,4000,8000 --cv synth:8
   delta memory eval trajectories --budget 4000 --json .delta/run-42/journal.jsonl > revisits.json
   delta memory eval trajectories --budget 2000 --questions probes.jsonl dev.json   # one line per probe
   delta memory eval trajectories --budget 2000 --questions probes.jsonl --contexts dev.json
      # each line also holds the window each system built (the engine's without Static)`,
		Flags: append(evalFlags("transcripts", cvFold), probesFlag(), contextsFlag()),
		Action: evalAction(e, evalSpec{name: "trajectories", several: true, unit: "steps", run: func(c *cli.Context, path string, opts eval.Options) (evalReport, error) {
			load := eval.LoadTranscripts
			if eval.IsSynth(path) {
				load = eval.SynthTranscripts
			}
			ts, err := load(path)
			if err != nil {
				hint := `pass OpenAI chat messages, a JSON list of objects with a "traj" or "messages" array, or a Delta journal.jsonl`
				if errors.Is(err, eval.ErrNoTranscripts) {
					hint = "pass a directory holding transcripts as *.json or *.jsonl files, or one such file"
				}
				return nil, withHint(err, hint)
			}
			budgets, err := evalBudgets(c, e, true)
			if err != nil {
				return nil, err
			}
			rep, err := eval.Trajectories(c.Context, ts, eval.TrajectoryOptions{Options: opts, Budgets: budgets})
			if rep != nil {
				rep.Path = path
			}
			return rep, err
		}}),
	}))
}
