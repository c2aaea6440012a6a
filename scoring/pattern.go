package scoring

import (
	"regexp"
	"sync"
)

// pattern is a regular expression compiled on first use. A short process
// such as `delta memory sync` reaches few of the package's patterns (most
// of its text has no error line and declares no milestone): compiling all
// of them as the process started cost 1 ms of every sync.
type pattern func() *regexp.Regexp

// patterns lists every pattern, so that a test can compile each one.
var patterns []pattern

// lazyPattern returns a pattern for expr. It panics on first use if expr
// does not compile, as regexp.MustCompile does.
func lazyPattern(expr string) pattern {
	p := pattern(sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }))
	patterns = append(patterns, p)
	return p
}
