package scoring

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Patterns over single lines, compiled on first use (see pattern); regexp
// values are safe for concurrent use and never modified.
var (
	// exitStatusRE captures the number of "exit status N", "exit code: N",
	// "exit_code": N, "exited with code N" and "[exit status N]".
	exitStatusRE = lazyPattern(`(?i)\bexit(?:ed)?(?:[ _-]?(?:status|code)|\s+with\s+(?:exit\s+)?(?:status|code))["']?\s*[:=]?\s*\(?(-?\d+)`)
	// errorPrefixRE matches a line that starts with an error marker:
	// "error:", "Error: ", "error[E0308]:", "fatal:", "panic:", "npm ERR!",
	// "[ERROR]", "ERROR ".
	errorPrefixRE = lazyPattern(`^(?:(?i:error|fatal|panic)(?:\[[^\]]*\])?\s*:|(?:npm )?ERR!|\[(?i:error|fatal)\]|ERROR\b|FATAL\b)`)
	// exceptionRE matches a line that starts with an exception class name,
	// optionally module-qualified, followed by ':' or the end of the line, or
	// Java's "Exception in thread" and "Caused by:".
	exceptionRE = lazyPattern(`^(?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::|$)|Exception in thread\b|Caused by:)`)
	// diagnosticRE matches compiler and linter diagnostics that name a file
	// and line: "main.go:12:5: undefined: x" (line and column, which grep -n
	// output lacks), "a.c:3:1: error: ...", "src/a.ts(3,5): error TS2345".
	diagnosticRE = lazyPattern(`^\S+?(?:\.go:\d+:\d+: \S|(?::\d+(?::\d+)?:|\(\d+,\d+\):)\s*(?:fatal )?error\b)`)
	// goTestRE matches the indented failure message of a Go test,
	// "    parse_test.go:12: got 1, want 2", on the untrimmed line.
	goTestRE = lazyPattern(`^\s+\S+_test\.go:\d+: \S`)
	// curlRE matches curl's error lines, "curl: (7) Failed to connect".
	curlRE = lazyPattern(`^curl: \(\d+\)`)
	// failedCountRE matches test and checker summaries with a non-zero
	// failure count: "1 failed", "failures=2", "Found 3 errors",
	// "2 errors in 0.1s".
	failedCountRE = lazyPattern(`(?i)\b[1-9]\d* (?:failed|failing)\b|\b(?:failures|errors)=[1-9]|\bfound [1-9]\d* errors?\b|\b[1-9]\d* errors? (?:in|found|generated|detected)\b`)
	// failedWordRE matches the upper-case word FAILED anywhere.
	failedWordRE = lazyPattern(`\bFAILED\b`)
	// notFoundRE matches "X: not found" and "<path-like word> not found".
	notFoundRE = lazyPattern(`(?i)\S: not found\b|(?:^|\s)['"]?\S*[\w~.-][/.]\w\S*['"]?:? (?:was )?not found\b`)
	// fatalRE matches "fatal:" after a non-letter.
	fatalRE = lazyPattern(`(?i)(?:^|[^a-z])fatal:`)
)

// tracebackHeader opens a Python traceback, lower-cased. It means failure
// but says nothing about it, so ErrorLine never returns it.
const tracebackHeader = "traceback (most recent call last)"

// failurePhrases are lower-case phrases that mean failure wherever they
// appear in a line.
var failurePhrases = []string{
	"no such file or directory",
	"command not found",
	"permission denied",
	"connection refused",
	"connection timed out",
	"operation timed out",
	"segmentation fault",
	"core dumped",
	"cannot find module",
}

// FailureText reports whether a tool output reads like a failure even when
// the runtime reported success. It looks, line by line, for:
//   - a Python traceback header, "No such file or directory", "command not
//     found", "permission denied", "connection refused", "connection/operation
//     timed out", "segmentation fault", "core dumped", "cannot find module"
//     (any case);
//   - "fatal:" anywhere, and lines starting with "error:", "Error:",
//     "error[E0308]:", "panic:", "npm ERR!", "[ERROR]", "ERROR", "FATAL", an
//     exception ("ValueError: ...") or "Exception in thread";
//   - the upper-case word FAILED, Go's "--- FAIL:" and "FAIL <pkg>" lines, and
//     summaries with a non-zero failure count ("1 failed", "failures=2",
//     "Found 3 errors");
//   - "exit status N", "exit code N", "exited with code N", "[exit status N]"
//     with N != 0;
//   - compiler diagnostics ("main.go:3:1: ...", "a.c:3:1: error: ...") and
//     indented Go test failures ("    parse_test.go:12: ...");
//   - curl errors ("curl: (7) ..."), "make: ***", a line that is just "Killed";
//   - "not found" after a path-like word or a colon ("src/a.py not found",
//     "sh: 1: pytest: not found").
//
// Prose that merely mentions errors does not count: "no errors found",
// "0 failed", "errors: 0", "exit code 0" and "error handling" are not
// failures.
func FailureText(output string) bool {
	var buf [256]byte
	for line := range strings.Lines(output) {
		if mayFail(line, buf[:0]) && failureLine(line) {
			return true
		}
	}
	return false
}

// failureLine reports whether one line signals failure.
func failureLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	return causeLine(line, t) || strongErrorLine(t) || weakErrorLine(t) ||
		strings.Contains(strings.ToLower(t), tracebackHeader)
}

// Error line tiers, from least to most informative.
const (
	tierNone    = iota
	tierSummary // summarises a failure: exit status, FAILED, "1 failed"
	tierDetail  // states an error: "No such file or directory", "E  +  where"
	tierCause   // names the error: "KeyError: ...", "Error: ...", diagnostics
)

// errorTier rates how informative a line is as an error line. t is the line
// trimmed of white space.
func errorTier(line, t string) int {
	switch {
	case causeLine(line, t):
		return tierCause
	case isPytestELine(t) && causeLine(t[1:], strings.TrimSpace(t[1:])):
		return tierCause
	case strongErrorLine(t):
		return tierDetail
	case weakErrorLine(t):
		return tierSummary
	}
	return tierNone
}

// causeLine reports whether a line names the error itself: an exception, an
// error/fatal/panic prefix, a compiler diagnostic, a Go test failure
// message or a curl error.
func causeLine(line, t string) bool {
	return errorPrefixRE().MatchString(t) || exceptionRE().MatchString(t) || goTestRE().MatchString(line) ||
		diagnosticRE().MatchString(t) || curlRE().MatchString(t)
}

// strongErrorLine reports whether a trimmed line states an error itself.
func strongErrorLine(t string) bool {
	if strings.HasPrefix(t, "--- FAIL:") || notFoundRE().MatchString(t) || isPytestELine(t) {
		return true
	}
	lower := strings.ToLower(t)
	for _, p := range failurePhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return fatalRE().MatchString(t)
}

// weakErrorLine reports whether a trimmed line only summarises a failure:
// exit statuses, FAILED and FAIL lines, failure counts.
func weakErrorLine(t string) bool {
	if t == "FAIL" || t == "Killed" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "FAIL ") ||
		strings.HasPrefix(t, "make: ***") || strings.HasPrefix(t, "make[") && strings.Contains(t, "***") {
		return true
	}
	if failedWordRE().MatchString(t) || failedCountRE().MatchString(t) {
		return true
	}
	for _, m := range exitStatusRE().FindAllStringSubmatch(t, -1) {
		if n, err := strconv.Atoi(m[1]); err != nil || n != 0 {
			return true
		}
	}
	return false
}

// isPytestELine reports whether t is a pytest failure detail line, "E" and
// at least one space before the text (in the raw output it is "E   ...").
func isPytestELine(t string) bool {
	return len(t) > 2 && t[0] == 'E' && (t[1] == ' ' || t[1] == '\t') &&
		strings.TrimSpace(t[1:]) != ""
}

// ErrorLine returns the single most informative error line of an output,
// trimmed of surrounding white space, or "" if there is none.
//
// Error lines come in three tiers, and the last line of the best tier present
// is returned:
//
//  1. lines that name the error: an exception ("AssertionError: ...", also
//     in a pytest "E   ..." line), "Error: ...", "error: ...", "fatal: ...",
//     "panic: ...", "npm ERR! ...", compiler diagnostics ("main.go:3:1: ..."),
//     Go test messages ("    x_test.go:12: ...") and "curl: (7) ...";
//  2. other lines that state an error: "No such file or directory",
//     "permission denied", "X: not found", other pytest "E" lines, Go's
//     "--- FAIL: ...";
//  3. summaries: "FAILED ...", "1 failed", "exit status 1", "FAIL pkg".
//
// The "E" marker of a pytest line is dropped.
//
// The result is cut to maxLen runes, ending in "…" when cut (the ellipsis
// counts towards maxLen); maxLen <= 0 means no limit.
func ErrorLine(output string, maxLen int) string {
	var best string
	bestTier := tierNone
	var buf [256]byte
	for line := range strings.Lines(output) {
		// A line of any tier is a failure line, so mayFail rules out the
		// others before the patterns run.
		if !mayFail(line, buf[:0]) {
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(strings.ToLower(t), tracebackHeader) {
			continue
		}
		if tier := errorTier(line, t); tier != tierNone && tier >= bestTier {
			best, bestTier = t, tier
		}
	}
	if isPytestELine(best) {
		best = strings.TrimSpace(best[1:])
	}
	return truncateRunes(best, maxLen)
}

// truncateRunes cuts s to at most n runes, the last being "…" when cut.
// n <= 0 means no limit.
func truncateRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return strings.TrimRight(s[:i], " \t") + "…"
}
