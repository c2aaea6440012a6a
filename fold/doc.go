// Package fold turns old iterations of an agent's run into FoldedBlocks at
// coarser levels, and decides when to do it.
//
// Levels: L0 is an iteration in full (not a block); L1 is one line per
// iteration (tool-pair folding); L2 summarises a range in a few sentences
// plus its key actions, errors and state changes; L3 is a chapter index over
// several L2/L1 blocks; L4 is one line per phase. Every block records the
// iteration range it covers, so folding is reversible: Unfold shows the
// block's children (or its iterations) again. Blocks are never deleted.
//
// The Scheduler runs after each import of new iterations. It folds on
// context pressure (with hysteresis), on an adaptive interval, on milestones
// the agent declares, and cascades Short-term overflow into L3 chapters and
// Long-term overflow into L4 phases. Its work per call is bounded by the
// window, not by the length of the run: it reads per-iteration notes that are
// computed once, when the iteration completes.
//
// Summaries come from a Summarizer. Extractive is the offline, deterministic
// default; LLMSummarizer asks a model behind an OpenAI-compatible endpoint
// for L2–L4 blocks, and any failure of the model makes that block
// extractive instead. Summaries are made outside the write transaction, and
// those of independent ranges concurrently (Folder.Concurrency); each fold is
// then written in its own transaction, in range order.
package fold
