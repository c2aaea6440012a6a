// Package visualize renders a run's memory as one self-contained HTML page:
// a timeline of the iterations coloured by how the context window shows
// them (L0 to L4, pinned, recalled), the block tree with each block's
// summary, keywords, entities and range, the window's partitions with their
// budgets and usage, and the recalls with their reasons.
//
// Gather reads the data from an engine; Render writes the page. The page
// fetches nothing: its style, script and data are inline, and its
// Content-Security-Policy allows only its own script and style, by hash.
// Journal text is untrusted: it travels as JSON in a
// <script type="application/json"> element and reaches the page only as
// text nodes. The same database state renders to the same bytes.
//
// Size is bounded on long runs: the timeline is a list of segments (runs of
// iterations shown alike), whose number follows the window, not the run;
// block summaries and window sections are cut at a few thousand characters,
// and only the newest recalls are listed.
package visualize
