// Package synth generates synthetic but realistic Delta Engine journals: the
// JSONL event log of a long-running software-engineering agent.
//
// A generated run follows an agent through phases of work on a small Python
// service (explore the repository, reproduce a failing test, fix it, add a
// feature, extend the tests, write docs, cut a release, then start over with
// the next request). The agent reads, writes, moves and deletes files, runs
// shell commands, searches the code, lists directories and calls HTTP
// endpoints. Tool outputs range from one line to tens of kilobytes, and some
// actions fail (missing files, failing tests with Python tracebacks, refused
// connections, non-zero exit codes, permission errors, timeouts); failures are
// usually followed by iterations that repair them. At the end of each phase the
// agent declares a milestone in its thought ("Phase 2 completed: parser
// fixed.", "Moving on to documentation.").
//
// Output depends only on the Config: the same Config always yields the same
// bytes. Generation streams one iteration at a time (see Generator.Next), so
// runs of hundreds of thousands of iterations need little memory.
//
// The generator is meant for tests, benchmarks and demos of the folding
// engine; nothing in it is used at run time on real journals.
package synth
