package scoring

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// failureMarkers are lower-case strings of which every ASCII line that
// failureLine accepts holds at least one. Each pattern needs one:
//   - "err": the error prefixes ("error:", "ERROR", "npm ERR!", "[error]"),
//     exception names ("ValueError"), "error" after a diagnostic's position,
//     "errors=1" and "3 errors in";
//   - "fatal", "panic", "exit" (exit statuses and codes), "exception"
//     ("Exception in thread"), "caused by:";
//   - "fail": FAIL, FAILED, "--- FAIL:", "1 failed", "failing", "failures=1";
//   - "found": "not found" and "found 3 errors";
//   - ".go:" (Go diagnostics and test messages), "curl: (", "killed",
//     "***" (make), "traceback";
//   - the failure phrases themselves.
//
// The pytest "E   ..." line has no marker and is checked on its own.
var failureMarkers = func() [][]byte {
	var out [][]byte
	for _, m := range append([]string{"err", "fail", "exit", "found", "fatal", "panic", "exception", "caused by:",
		".go:", "curl: (", "killed", "***", "traceback"}, failurePhrases...) {
		out = append(out, []byte(m))
	}
	return out
}()

// mayFail reports whether failureLine could accept line: false means it
// cannot, so the patterns need not run. It lower-cases an ASCII line into
// buf and looks for the markers; regexp's case folding also matches
// non-ASCII letters (the Kelvin sign for k, ſ for s) and strings.ToLower
// maps some of them to ASCII, so a line with any non-ASCII byte is always
// passed on.
func mayFail(line string, buf []byte) bool {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	if isPytestELine(strings.TrimSpace(line)) {
		return true
	}
	for _, m := range failureMarkers {
		if bytes.Contains(buf, m) {
			return true
		}
	}
	return false
}
