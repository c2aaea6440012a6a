// Package scoring holds the pure text heuristics that the folding engine uses
// to decide what an agent's journal is about and what is worth keeping.
//
// Everything here is a deterministic function of its arguments: no I/O, no
// clocks, no randomness, and no mutable package state. The BPE vocabularies
// behind [NewTokenizer] are embedded hash tables read in place, so a new
// process counts tokens without building anything first.
//
// The package is organised by responsibility:
//
//   - Token counting ([Tokenizer], [NewTokenizer]) measures text the way a
//     model's BPE vocabulary does, so budgets are exact rather than estimated.
//   - Index terms ([Terms]) and TF-IDF ranking ([Keywords]) describe what a
//     piece of text is about.
//   - Entities ([Entities], [Specificity]) pick out recall-worthy names such as
//     paths, URLs, host:port pairs, code identifiers and error codes.
//   - Tool semantics ([KindOfTool], [StateChanges]) classify tools and infer
//     what a successful action changed on disk or in the environment.
//   - Error signals ([FailureText], [ErrorLine]) spot failures that the runtime
//     reported as successes and extract the line that explains them.
//   - Milestones ([Milestone]) recognise thoughts that declare a phase done.
//   - Importance ([Importance], [Recency], [AccessFactor]) combines recency,
//     access, error and state-change factors into one score in [0,1].
//
// Output order is always stable: functions return results in order of first
// appearance in their input, or sorted with explicit tie-breaks, never in map
// iteration order.
package scoring
