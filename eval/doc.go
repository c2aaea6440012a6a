// Package eval measures how much of a benchmark question's evidence the
// engine puts in front of an agent about to answer it, next to two
// baselines on the same token budget: the newest turns that fit (recent)
// and the plain BM25 top turns that fit (bm25-turns).
//
// Each conversation (LoCoMo) or haystack (LongMemEval) is imported as a
// run, one turn per iteration, and folded under the budget. Each question
// is then asked against that same folded state, on a copy of it, so that
// questions never see each other: the question is appended as a user
// message (the agent's current step), the engine runs its scheduler and
// recall triggers, the agent's recall_memory tool is called with the
// question, and the context window is built. A question's evidence turn
// counts as present when its whole line is in that window's Markdown.
//
// LongMemEval also gets the ranking metrics of its official scripts
// (session recall_all@k, ndcg_any@k, turn recall_any@k) from the engine's
// retrieve with the question (a dry run, which ranks what shows in full too).
//
// Trajectories measures agent runs instead of conversations: whether a step
// that comes back to what an earlier step's tool call named (a path, an
// id, a date) finds that step's output in its window. Each transcript is
// replayed into a fresh engine as it was written, and the window is built
// at each such step's pending call, beside the recent and bm25-steps
// baselines (see Trajectories and Probe).
package eval
