// Package recall brings folded history back into the context window.
//
// A bleve index, derived from SQLite and rebuilt from it at will, holds one
// document per iteration and one per block. Three kinds of recall read it:
//
//   - explicit: the agent or user asks by keyword (Retrieve), BM25-ranked,
//     each hit ranked again by the hits around it (nearby.go) and, for a
//     question that fills the window, by a second search on the words the
//     best hits share (secondhop.go);
//   - implicit: the newest iteration names a specific entity (a path, an
//     identifier) that folded content holds, and the match is strong enough
//     once its specificity is weighed with the content's importance;
//   - error-driven: an action failed, and what explains it comes back:
//     the last state change of what it failed on (a move, a delete, a
//     chmod, an overwrite), then the change that made it, from the run's
//     entity history; else earlier actions that changed or mentioned it.
//
// A recall is a row in SQLite: a range of iterations, the reason, the query
// and a lifetime in iterations. It shows in the Retrieved partition until it
// expires, is refreshed when a later iteration names it again, and then
// fades from the window while staying in the journal. A later iteration
// that acts on its iterations again (its call takes what theirs took, or a
// failure names what they changed) also makes a recall of them anew, so
// that the window can show them at that step if the first no longer
// shows.
//
// SQLite is the truth. The index keeps its position per run in SQLite and
// is caught up on use, so a crash between a commit and the indexing that
// follows loses nothing. A missing or corrupt index is rebuilt, and so is
// one another database wrote (its generation is not the one SQLite keeps).
package recall
